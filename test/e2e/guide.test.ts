/*
 * docs/guide.md's application (examples/guide, with examples/starter's
 * pages) end to end: its real entry point as a child process, a real SMTP
 * server, headless Chromium with a virtual authenticator. One person walks
 * the guide's steps in order: emailed-link sign-in, a first passkey and the
 * recovery codes it leads to, a link sign-in confirmed by the passkey, a job
 * to its end, an agent token whose tool call reads that job, a project and
 * an expense that refers to it created through the resources' forms, seen in its list and through the
 * same agent's `expenses_list` tool, then a write token whose
 * `expenses_create` call waits on the approval page until the person
 * approves it, and runs once.
 *
 * On the way it writes screenshots of the starter's pages in English and
 * Arabic to SCREENSHOT_DIR (default <tmpdir>/latch-screenshots/starter) for
 * a person to look at; the test asserts the files exist, a person judges
 * them.
 */
import assert from "node:assert/strict";
import { mkdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Handler } from "../../lib/index.ts";
import { NewAssets } from "../../lib/assets/index.ts";
import { LOCALES_DIR, STATIC_DIR } from "../../examples/starter/files.ts";
import { errorPage } from "../../examples/starter/pages/errors.ts";
import {
  addVirtualAuthenticator,
  hasChromium,
  launchBrowser,
  watchedPage,
  type Browser,
  type Page,
  type WatchedPage,
} from "../_support/browser.ts";
import { mintTokenInBrowser, signInByLink, signOut, startGuide, type Demo } from "../_support/demo.ts";
import { connectMCP } from "../_support/mcp-client.ts";
import { fetchHTTP } from "../_support/http.ts";
import { CookieJar, sendRequest } from "../_support/http-client.ts";
import { startServer } from "../_support/server.ts";

const ADDRESS = "grace@example.com";
const SHOTS = process.env["SCREENSHOT_DIR"] ?? join(tmpdir(), "latch-screenshots", "starter");

/** Screenshots `path` in English and Arabic as `<locale>-<name>.png`. */
async function shoot(page: Page, origin: string, name: string, path: string): Promise<void> {
  for (const locale of ["en", "ar"]) {
    await page.goto(`${origin}${locale === "en" ? "" : `/${locale}`}${path}`);
    const file = join(SHOTS, `${locale}-${name}.png`);
    await page.screenshot({ path: file, fullPage: true });
    assert.ok(statSync(file).size > 1000, file);
  }
}

describe("the guide's application (browser)", { skip: hasChromium ? false : "no system Chromium" }, () => {
  let app: Demo;
  let browser: Browser;
  let watched: WatchedPage;
  let page: Page;
  let jobID = "";
  let token = "";

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    app = await startGuide({ JOB_STEP_MS: "300" });
    browser = await launchBrowser();
    watched = await watchedPage(await browser.newContext());
    page = watched.page;
    await page.setViewportSize({ width: 720, height: 900 });
    await addVirtualAuthenticator(page);
  });
  after(async () => {
    await browser?.close();
    await app?.close();
  });

  it("step 1: serves the home page, /healthz and a real 404 page", async () => {
    await page.goto(app.origin);
    assert.match((await page.textContent("h1")) ?? "", /My app/);
    assert.deepEqual(JSON.parse((await fetchHTTP(Number(new URL(app.origin).port), "/healthz")).body ?? ""), { status: "ok" });
    const missing = await page.goto(`${app.origin}/no/such/page`);
    assert.equal(missing?.status(), 404);
    assert.equal(await page.getAttribute("[data-status]", "data-status"), "404");
    await shoot(page, app.origin, "home", "/");
    await shoot(page, app.origin, "not-found", "/no/such/page");
    await shoot(page, app.origin, "signin", "/signin");
    await shoot(page, app.origin, "signin-sent", "/signin?sent=1");
    await shoot(page, app.origin, "signin-err-code", "/signin?err=code");
    await shoot(page, app.origin, "signin-err-expired", "/signin?err=expired");
  });

  it("step 2: signs in by emailed link to the account page, the method in words", async () => {
    await signInByLink(page, app, ADDRESS);
    await page.waitForURL(`${app.origin}/account`);
    assert.equal(await page.getAttribute("body", "data-subject"), ADDRESS);
    assert.equal(await page.getAttribute("body", "data-method"), "magiclink");
    assert.match((await page.textContent("main")) ?? "", /Signed in with email link/);
  });

  it("step 3: adds a first passkey, which leads to generating recovery codes", async () => {
    await page.click('button[data-passkey="register"]');
    await page.waitForSelector("li[data-credential]");
    await page.waitForSelector('[data-outcome="codes-needed"]');
    await shoot(page, app.origin, "account-codes-needed", "/account");
    await page.goto(`${app.origin}/account`);
    await page.click('form[action="/account/recovery-codes"] button');
    await page.waitForSelector("ul.codes code");
    const codes = await page.evaluate(`[...document.querySelectorAll("ul.codes code")].map((c) => c.textContent)`);
    assert.ok(Array.isArray(codes));
    assert.equal(codes.length, 10);
  });

  it("step 3: after the link, Gate asks for the passkey on /confirm; the session is magiclink+passkey", async () => {
    await signOut(page, app);
    await shoot(page, app.origin, "confirm", "/confirm");
    await signInByLink(page, app, ADDRESS);
    await page.waitForURL(`${app.origin}/confirm`);
    await page.click('button[data-passkey="signin"]');
    await page.waitForURL(`${app.origin}/account`);
    assert.equal(await page.getAttribute("body", "data-method"), "magiclink+passkey");
    assert.match((await page.textContent("main")) ?? "", /Signed in with email link \+ passkey/);
    await shoot(page, app.origin, "account", "/account");
    await shoot(page, app.origin, "stepup", "/stepup?next=/account");
    await shoot(page, app.origin, "security", "/account/security"); // step 9's page, this session fresh
  });

  it("step 4: starts a job and follows its status page to the end, a progress bar with a fraction", async () => {
    await page.goto(`${app.origin}/account`);
    await page.click('form[action="/jobs"] button');
    await page.waitForURL(/\/jobs\/[A-Za-z0-9_-]+$/);
    jobID = page.url().split("/").at(-1) ?? "";
    await page.waitForSelector('.job-status[data-status="done"]');
    assert.equal(await page.textContent(".job-progress"), "10/10");
    assert.equal(await page.getAttribute("progress", "value"), "100");
    await shoot(page, app.origin, "job-done", `/jobs/${jobID}`);
  });

  it("step 5: mints an agent token whose tool call reads the job", async () => {
    await page.goto(`${app.origin}/account/agents`);
    await page.fill("#agent-name", "helper");
    await page.click('form[action="/account/agents"] button');
    await page.waitForSelector("[data-agent-token]");
    token = (await page.getAttribute("[data-agent-token]", "data-agent-token")) ?? "";
    // The starter's token page says when each token expires.
    assert.match((await page.textContent("[data-agent-id] [data-agent-expires]")) ?? "", /expires on\s+\d{4}-\d{2}-\d{2}/);
    const port = Number(new URL(app.origin).port);
    const call = await fetchHTTP(port, "/api/tools/job_status", {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ id: jobID }),
    });
    assert.equal(call.status, 200, call.body);
    const result = (JSON.parse(call.body ?? "") as { result: Record<string, unknown> }).result;
    assert.equal(result["status"], "done");
    assert.equal(result["progress"], "10/10");
    const refused = await fetchHTTP(port, "/api/tools/job_status", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: "{}",
    });
    assert.equal(refused.status, 401);
  });

  it("step 6: creates an expense for a project through the resource's form and sees it in the list, and through the agent's tool", async () => {
    await page.goto(`${app.origin}/projects/new`);
    assert.equal(await page.textContent('label[for="field-name"]'), "Name");
    await page.fill("#field-name", "Conference");
    await page.click('form[action="/projects"] button[type="submit"]');
    await page.waitForURL(/\/projects\/[A-Za-z0-9_-]+$/);
    const project = page.url().split("/").at(-1) ?? "";
    await page.goto(`${app.origin}/expenses`);
    assert.equal(await page.textContent("h1"), "Expenses");
    await page.waitForSelector("[data-empty]");
    await page.click('a[href="/expenses/new"]');
    await page.waitForURL(`${app.origin}/expenses/new`);
    assert.equal(await page.textContent('label[for="field-label"]'), "Label");
    await page.fill("#field-label", "Train to the conference");
    await page.fill("#field-amount", "1,234.50");
    await page.fill("#field-spent_on", "2026-11-26");
    assert.equal(await page.textContent('label[for="field-project"]'), "Project");
    await page.selectOption("#field-project", project);
    await page.click('form[action="/expenses"] button[type="submit"]');
    await page.waitForURL(/\/expenses\/[A-Za-z0-9_-]+$/);
    const id = page.url().split("/").at(-1) ?? "";
    assert.equal(await page.getAttribute("#field-label", "value"), "Train to the conference");
    await page.click('a[href="/expenses"] >> nth=0');
    await page.waitForURL(`${app.origin}/expenses`);
    const row = `tr[data-record-id="${id}"]`;
    await page.waitForSelector(row);
    assert.match((await page.textContent(row)) ?? "", /Train to the conference.*€1,234\.50.*Nov 26, 2026.*Conference/s);
    assert.equal(await page.getAttribute(`${row} a[data-reference]`, "href"), `/projects/${project}`);
    await shoot(page, app.origin, "expenses", "/expenses");
    await shoot(page, app.origin, "expense", `/expenses/${id}`);

    const call = await fetchHTTP(Number(new URL(app.origin).port), "/api/tools/expenses_list", {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: "{}",
    });
    assert.equal(call.status, 200, call.body);
    const { items } = (JSON.parse(call.body ?? "") as { result: { items: Record<string, unknown>[] } }).result;
    assert.deepEqual(
      items.map((item) => [item["id"], item["label"], item["amount"], item["spent_on"], item["project"]]),
      [[id, "Train to the conference", "1234.50", "2026-11-26", project]],
    );
  });

  it("step 7: a write token's call waits for approval; the person reads what it would create, approves, and it runs once", async () => {
    await page.goto(`${app.origin}/account`);
    await page.click('a[href="/account/agents"]');
    await page.waitForURL(`${app.origin}/account/agents`);
    const writer = await mintTokenInBrowser(page, app, "writer", "write");
    assert.equal(await page.getAttribute('[data-agent-access="write"]', "data-agent-access"), "write");
    assert.equal(await page.textContent("[data-mcp-url]"), `${app.origin}/mcp`);
    await shoot(page, app.origin, "agents", "/account/agents");
    const mcp = await connectMCP(app, writer);
    const listed = await mcp.listTools();
    await mcp.close();
    assert.ok(listed.tools.some((t) => t.name === "expenses_create"));

    const label = "Hotel near the conference centre, two nights, breakfast included, booked through the travel desk";
    const create = (): ReturnType<typeof fetchHTTP> =>
      fetchHTTP(Number(new URL(app.origin).port), "/api/tools/expenses_create", {
        method: "POST",
        headers: { Authorization: `Bearer ${writer}`, "Content-Type": "application/json" },
        body: JSON.stringify({ label, amount: "312.40" }),
      });
    const asked = await create();
    assert.equal(asked.status, 202, asked.body);
    const url = String((JSON.parse(asked.body ?? "") as Record<string, unknown>)["approval_url"]);
    assert.match(url, new RegExp(`^${app.origin}/account/approvals/[A-Za-z0-9_-]{22}$`));

    await page.goto(`${app.origin}/account/approvals`);
    const id = url.split("/").at(-1) ?? "";
    await page.waitForSelector(`[data-approval-id="${id}"][data-approval-status="pending"]`);
    await page.goto(url);
    const cells = (name: string): Promise<unknown> =>
      page.evaluate(`[...document.querySelectorAll('[data-preview="create"] tr[data-value="${name}"] > *')].map((c) => c.textContent)`);
    assert.deepEqual(await cells("label"), ["Label", label]);
    assert.deepEqual(await cells("amount"), ["Amount", "€312.40"]);
    assert.doesNotMatch(await page.content(), /<pre|"label":/, "no raw JSON");
    await shoot(page, app.origin, "approval", new URL(url).pathname);
    await page.click('[data-approval="approve"]');
    await page.waitForSelector(`[data-approval-id="${id}"][data-approval-status="approved"] [data-outcome="approved"]`);
    await shoot(page, app.origin, "approval-approved", new URL(url).pathname);

    const ran = await create();
    assert.equal(ran.status, 200, ran.body);
    assert.equal((await create()).status, 202, "the approval is spent: a repeat asks again");
    await page.goto(`${app.origin}/expenses`);
    const rows = await page.evaluate(
      `[...document.querySelectorAll("tr[data-record-id]")].filter((r) => r.textContent.includes(${JSON.stringify(label)})).length`,
    );
    assert.equal(rows, 1, "ran once");
  });

  it("ran under the CSP with no console error, no failed request but the 404s, and no server error", async () => {
    for (const csp of watched.policies) assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    assert.deepEqual(
      watched.failures.filter((f) => !f.includes("/no/such/page")),
      [],
    );
    assert.deepEqual(
      watched.errors.filter((e) => !e.includes("404")),
      [],
    );
    assert.deepEqual(app.errorLogs(), []);
    assert.doesNotMatch(app.logs(), /no route serves/, "every page a component links to is routed");
  });
});

describe("the guide's application without --addr", () => {
  it("listens on PORT from the environment, and mails with EHLO naming its origin's host", async () => {
    const app = await startGuide({}, undefined, "PORT");
    try {
      const reply = await fetchHTTP(Number(new URL(app.origin).port), "/healthz");
      assert.equal(reply.status, 200);
      assert.match(app.logs(), new RegExp(`"addr":"[^"]*:${new URL(app.origin).port}"`));
      const begun = await sendRequest(
        app.origin,
        "POST",
        "/signin",
        { jar: new CookieJar(), form: { email: "ehlo@example.com" } },
        app.origin,
      );
      assert.equal(begun.status, 303);
      assert.equal((await app.smtp.waitForMessage()).helo, "localhost");
    } finally {
      await app.close();
    }
  });
});

describe("the starter's error page (browser)", { skip: hasChromium ? false : "no system Chromium" }, () => {
  it("renders a 500 with its reference in the starter's layout, in English and Arabic", async (t) => {
    const assets = NewAssets([STATIC_DIR]);
    const [handler, cleanup] = Handler({
      Mux: () => {
        throw new Error("starter: this page fails on purpose");
      },
      Locales: ["en", "ar"],
      LocaleFS: LOCALES_DIR,
      ErrorPage: (req, res, status, ref) => errorPage(req, res, assets, status, ref),
      Logger: {
        debug() {},
        info() {},
        warn() {},
        error() {},
        with() {
          return this;
        },
      },
      Wrap: (next) => (req, res) => ((req.url ?? "").includes("/static/") ? assets.Handler()(req, res) : next(req, res)),
    });
    const server = await startServer(t, handler, { cleanup });
    const browser = await launchBrowser();
    t.after(() => browser.close());
    const page = await (await browser.newContext()).newPage();
    await page.setViewportSize({ width: 720, height: 600 });
    const origin = `http://localhost:${server.port}`;
    const reply = await page.goto(`${origin}/broken`);
    assert.equal(reply?.status(), 500);
    assert.match((await page.textContent("main")) ?? "", /Reference: [a-z2-7]{6}/);
    await shoot(page, origin, "error", "/broken");
  });
});
