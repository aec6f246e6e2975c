/*
 * Standing approvals in a browser (issue 39, item 3): the demo's approval page with its "approve calls like this" form
 * (the record by its name, the fields by their labels), made there by the person, and `/account/agents` listing it
 * beside the token with a team's (the team by its name), each checked by axe-core (test/_support/axe.ts: no serious or
 * critical WCAG 2.1 A/AA violation) in light and dark, in English and in Arabic, where the page is right to left. With
 * SCREENSHOT_DIR set, each page is written there as `standing-<locale>-<scheme>-<name>.png` for a person to look at.
 */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { axeViolations } from "../_support/axe.ts";
import { hasChromium, launchBrowser, watchedPage, type Browser, type Page } from "../_support/browser.ts";
import { mintTokenInBrowser, signInByLink, startDemo, type Demo } from "../_support/demo.ts";
import { sendRequest } from "../_support/http-client.ts";

const SHOTS = process.env["SCREENSHOT_DIR"];

/** Calls `tool` as the agent holding `token`; returns the answer's status and JSON. */
async function callTool(
  demo: Demo,
  token: string,
  tool: string,
  args: Record<string, unknown>,
): Promise<{ status: number; body: unknown }> {
  const headers = { Authorization: `Bearer ${token}`, "Content-Type": "application/json" };
  const res = await sendRequest(demo.origin, "POST", `/api/tools/${tool}`, { headers, body: JSON.stringify(args) }, demo.origin);
  return { status: res.status, body: JSON.parse(res.body) };
}

/** Asks for a write call and returns its approval page's path. */
async function pending(demo: Demo, token: string, tool: string, args: Record<string, unknown>): Promise<string> {
  const held = await callTool(demo, token, tool, args);
  assert.equal(held.status, 202, JSON.stringify(held.body));
  return new URL((held.body as { approval_url: string }).approval_url).pathname;
}

/** Submits a form in the browser: `fields` filled, then its button `submit`; waits for the page at `next`. */
async function submit(page: Page, fields: Record<string, string>, submit: string, next: RegExp): Promise<void> {
  for (const [name, value] of Object.entries(fields)) await page.fill(`[name="${name}"]`, value);
  await Promise.all([page.waitForURL(next), page.click(submit)]);
}

/** Checks `path` in English and Arabic, light and dark; returns every violation as "rule (impact) on page: node". */
async function check(page: Page, demo: Demo, name: string, path: string): Promise<string[]> {
  const found: string[] = [];
  for (const locale of ["en", "ar"]) {
    await page.goto(`${demo.origin}${locale === "en" ? "" : `/${locale}`}${path}`);
    assert.equal(await page.getAttribute("html", "dir"), locale === "ar" ? "rtl" : "ltr");
    for (const colorScheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme });
      const label = `${locale}-${colorScheme}-${name}`;
      if (SHOTS !== undefined) await page.screenshot({ path: join(SHOTS, `standing-${label}.png`), fullPage: true });
      for (const v of await axeViolations(page)) for (const node of v.nodes) found.push(`${v.rule} (${v.impact}) on ${label}: ${node}`);
    }
  }
  return found;
}

describe("standing approvals in the demo (browser, axe)", { skip: hasChromium ? false : "no system Chromium" }, () => {
  let browser: Browser | undefined;
  let demo: Demo | undefined;
  after(async () => {
    await browser?.close();
    await demo?.close();
  });

  it("the approval page's form and the token's list pass axe in light and dark, English and Arabic, naming record, fields and team", async () => {
    if (SHOTS !== undefined) mkdirSync(SHOTS, { recursive: true });
    demo = await startDemo();
    browser = await launchBrowser();
    const { page } = await watchedPage(await browser.newContext());
    await signInByLink(page, demo, "ada-standing-browser@example.com");
    await page.waitForURL(`${demo.origin}/account`);
    const token = await mintTokenInBrowser(page, demo, "ledger", "write");
    await page.goto(`${demo.origin}/expenses/new`);
    await submit(
      page,
      { label: "Train to Lyon", amount: "12.50" },
      `form[data-resource] button[type="submit"]`,
      /\/expenses\/[A-Za-z0-9_-]+$/,
    );
    const id = new URL(page.url()).pathname.split("/").pop() ?? "";
    await page.goto(`${demo.origin}/teams`);
    await submit(page, { name: "Workshop" }, `form[action="/teams"] button[type="submit"]`, /\/teams\/[A-Za-z0-9_-]+$/);
    const team = new URL(page.url()).pathname.split("/").pop() ?? "";
    const { version } = ((await callTool(demo, token, "expenses_read", { id })).body as { result: { version: number } }).result;

    const found: string[] = [];
    const update = await pending(demo, token, "expenses_update", { id, version, label: "Train to Lyon (return)" });
    found.push(...(await check(page, demo, "approval", update)));
    await page.goto(`${demo.origin}${update}`);
    assert.equal(await page.textContent('form[data-standing-form] label:has([name="same_record"]) [data-record-title]'), "Train to Lyon");
    await submit(page, { calls: "5" }, '[data-approval="standing"]', /\/account\/agents$/);
    assert.equal(new URL(page.url()).pathname, "/account/agents");
    const task = await pending(demo, token, "tasks_create", { team, title: "Sharpen the chisels" });
    await page.goto(`${demo.origin}${task}`);
    await submit(page, {}, '[data-approval="standing"]', /\/account\/agents$/);
    assert.equal(await page.evaluate(`document.querySelectorAll("[data-standing-id]").length`), 2);
    assert.equal(await page.textContent("[data-standing-id] [data-record-title]"), "Train to Lyon");
    assert.equal(await page.textContent("[data-standing-id] [data-standing-context]"), "Workshop");
    found.push(...(await check(page, demo, "agents", "/account/agents")));
    assert.deepEqual(found, [], `${found.length} serious or critical WCAG 2.1 A/AA violations:\n${found.join("\n")}`);
  });
});
