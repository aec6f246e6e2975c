/*
 * Every page of the starter (examples/starter) as the guide's application
 * serves it, from one list, for the browser tests that look at all of them
 * (test/e2e/starter-pages.test.ts: axe-core and screenshots in three
 * locales and two schemes). A new starter page is one more row of
 * `STARTER_PAGES`; a page that needs records first names them through
 * `StarterRecords`, which `seedStarter` creates once in the browser.
 */
import assert from "node:assert/strict";
import type { Page } from "./browser.ts";
import { mintTokenInBrowser, signInByLink, type Demo } from "./demo.ts";
import { sendRequest } from "./http-client.ts";

/** A label no German hyphenation breaks: wider than a 375 px screen's table column on its own. */
export const LONG_GERMAN_LABEL = "Rindfleischetikettierungsüberwachungsaufgabenübertragungsgesetz";

/** What `seedStarter` made: the paths of pages that show a record. */
export interface StarterRecords {
  expense: string;
  project: string;
  team: string;
  job: string;
  approval: string;
  consent: string;
}

/** One starter page: its name (the screenshot's), whether it needs a session, and its path. */
export interface StarterPage {
  name: string;
  signedIn: boolean;
  path: (records: StarterRecords) => string;
}

const at = (path: string) => (): string => path;

/** Every starter page, signed out first (a session changes the header of every page after). */
export const STARTER_PAGES: readonly StarterPage[] = [
  { name: "home", signedIn: false, path: at("/") },
  { name: "signin", signedIn: false, path: at("/signin") },
  { name: "signin-sent", signedIn: false, path: at("/signin?sent=1") },
  { name: "signin-rate", signedIn: false, path: at("/signin?err=rate") },
  { name: "not-found", signedIn: false, path: at("/no/such/page") },
  { name: "home-in", signedIn: true, path: at("/") },
  { name: "account", signedIn: true, path: at("/account") },
  { name: "security", signedIn: true, path: at("/account/security") },
  { name: "confirm", signedIn: true, path: at("/confirm") },
  { name: "stepup", signedIn: true, path: at("/stepup?next=/account") },
  { name: "agents", signedIn: true, path: at("/account/agents") },
  { name: "approvals", signedIn: true, path: at("/account/approvals") },
  { name: "approval", signedIn: true, path: (r) => r.approval },
  { name: "consent", signedIn: true, path: (r) => r.consent },
  { name: "expenses", signedIn: true, path: at("/expenses") },
  { name: "expenses-new", signedIn: true, path: at("/expenses/new") },
  { name: "expense", signedIn: true, path: (r) => r.expense },
  { name: "projects", signedIn: true, path: at("/projects") },
  { name: "project", signedIn: true, path: (r) => r.project },
  { name: "teams", signedIn: true, path: at("/teams") },
  { name: "team", signedIn: true, path: (r) => r.team },
  { name: "team-delete", signedIn: true, path: (r) => `${r.team}/delete` },
  { name: "tasks", signedIn: true, path: (r) => `${r.team}/tasks` },
  { name: "tasks-new", signedIn: true, path: (r) => `${r.team}/tasks/new` },
  { name: "job", signedIn: true, path: (r) => r.job },
  { name: "job-unknown", signedIn: true, path: at("/jobs/no-such-job") },
];

/**
 * Registers an OAuth client (RFC 7591) with `origin` and returns the
 * authorization request whose answer, for a signed-in person, is the
 * consent page (write access: asked just after signing in, so fresh).
 */
export async function consentPath(origin: string): Promise<string> {
  const redirect = "http://127.0.0.1:33418/callback";
  const registered = await sendRequest(
    origin,
    "POST",
    "/oauth/register",
    { headers: { "Content-Type": "application/json" }, body: JSON.stringify({ client_name: "Desk Assistant", redirect_uris: [redirect] }) },
    origin,
  );
  assert.equal(registered.status, 201, registered.body);
  const query = new URLSearchParams({
    response_type: "code",
    client_id: String(JSON.parse(registered.body).client_id),
    redirect_uri: redirect,
    code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    code_challenge_method: "S256",
    scope: "read write",
    state: "a11y",
  });
  return `/oauth/authorize?${query.toString()}`;
}

/** Asks, as the agent holding `token`, for a write call (`tool` with `args`) and returns its approval page's path. */
export async function pendingApproval(origin: string, token: string, tool: string, args: Record<string, unknown>): Promise<string> {
  const held = await sendRequest(
    origin,
    "POST",
    `/api/tools/${tool}`,
    { headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" }, body: JSON.stringify(args) },
    origin,
  );
  assert.equal(held.status, 202, held.body);
  return new URL((JSON.parse(held.body) as { approval_url: string }).approval_url).pathname;
}

/** Submits the resource form at `path` with `fields` (input name to value) and returns the record page's path. */
async function createRecord(page: Page, app: Demo, path: string, resource: string, fields: Record<string, string>): Promise<string> {
  await page.goto(`${app.origin}${path}`);
  for (const [name, value] of Object.entries(fields)) await page.fill(`form[data-resource="${resource}"] [name="${name}"]`, value);
  await page.click(`form[data-resource="${resource}"] button[type="submit"]`);
  await page.waitForSelector("section[data-record-id]");
  return new URL(page.url()).pathname;
}

/** Creates the team `name` on the starter's `/teams` page, invites `invitee` from the team's page, and returns that page's path. */
export async function teamWithInvitation(page: Page, origin: string, name: string, invitee: string): Promise<string> {
  await page.goto(`${origin}/teams`);
  await page.fill('form[action="/teams"] input[name="name"]', name);
  await page.click('form[action="/teams"] button[type="submit"]');
  await page.waitForSelector('body[data-role="owner"]');
  const team = new URL(page.url()).pathname;
  await page.fill(`form[action="${team}/invitations"] input[name="email"]`, invitee);
  await page.click(`form[action="${team}/invitations"] button[type="submit"]`);
  await page.waitForSelector("[data-invitation]");
  return team;
}

/**
 * Signs `address` in and fills the application with what every page of
 * the list shows: a project, an expense with a long German word, a team
 * with an invitation and a task, a running job, two agent tokens (one
 * with a long name) and a call waiting for approval.
 */
export async function seedStarter(page: Page, app: Demo, address: string): Promise<StarterRecords> {
  await signInByLink(page, app, address);
  await page.waitForURL(`${app.origin}/account`);
  const project = await createRecord(page, app, "/projects/new", "projects", { name: "Werkstatt" });
  const expense = await createRecord(page, app, "/expenses/new", "expenses", {
    label: LONG_GERMAN_LABEL,
    amount: "1234.50",
    spent_on: "2026-11-30",
  });
  const team = await teamWithInvitation(page, app.origin, "Werkstattverwaltungsgemeinschaft", "grace-pages@example.com");
  await createRecord(page, app, `${team}/tasks/new`, "tasks", { title: "Bohrmaschine prüfen", assignee: "grace-pages@example.com" });
  await page.goto(`${app.origin}/account`);
  await page.click('form[action="/jobs"] button');
  await page.waitForURL(/\/jobs\/[A-Za-z0-9_-]+$/);
  const job = new URL(page.url()).pathname;
  await mintTokenInBrowser(page, app, "reader", "read");
  const token = await mintTokenInBrowser(page, app, "buchhaltungsassistent-reisekostenabrechnungen", "write");
  const approval = await pendingApproval(app.origin, token, "expenses_create", { label: "Train-ticket-".repeat(9), amount: "20.00" });
  return { expense, project, team, job, approval, consent: await consentPath(app.origin) };
}
