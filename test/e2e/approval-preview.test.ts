/*
 * The approval page of a resource write in a browser (issue 39, item 1): the demo's page and the starter's (as the
 * guide's application serves it) for an agent's update, create and delete, and an update gone stale, each checked by
 * axe-core (test/_support/axe.ts: no serious or critical WCAG 2.1 A/AA violation) in light and dark, in English and in
 * Arabic, where the page is right to left. The unchanged fields open from their fold. With SCREENSHOT_DIR set, each
 * page is written there as `preview-<app>-<locale>-<scheme>-<name>.png` for a person to look at.
 */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { axeViolations } from "../_support/axe.ts";
import { addVirtualAuthenticator, hasChromium, launchBrowser, watchedPage, type Browser, type Page } from "../_support/browser.ts";
import { mintTokenInBrowser, signInByLink, startDemo, startGuide, type Demo } from "../_support/demo.ts";
import { sendRequest } from "../_support/http-client.ts";

const SHOTS = process.env["SCREENSHOT_DIR"];

/** A running application and the name its screenshots carry. */
type App = Demo & { name: string };

/** Calls `tool` as the agent holding `token`; returns the answer's JSON and status. */
async function callTool(app: App, token: string, tool: string, args: Record<string, unknown>): Promise<{ status: number; body: unknown }> {
  const res = await sendRequest(
    app.origin,
    "POST",
    `/api/tools/${tool}`,
    { headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" }, body: JSON.stringify(args) },
    app.origin,
  );
  return { status: res.status, body: JSON.parse(res.body) };
}

/** Asks for a write call and returns its approval page's path. */
async function pending(app: App, token: string, tool: string, args: Record<string, unknown>): Promise<string> {
  const held = await callTool(app, token, tool, args);
  assert.equal(held.status, 202, JSON.stringify(held.body));
  return new URL((held.body as { approval_url: string }).approval_url).pathname;
}

/** Creates a record through its form in the browser; returns its id. */
async function createIn(page: Page, app: App, route: string, fields: Record<string, string>): Promise<string> {
  await page.goto(`${app.origin}${route}/new`);
  for (const [name, value] of Object.entries(fields)) {
    if ((await page.evaluate(`document.querySelector('[name="${name}"]').tagName`)) === "SELECT")
      await page.selectOption(`[name="${name}"]`, value);
    else await page.fill(`[name="${name}"]`, value);
  }
  await page.click(`form[data-resource] button[type="submit"]`);
  await page.waitForSelector("section[data-record-id]");
  return new URL(page.url()).pathname.split("/").pop() ?? "";
}

/** Checks `path` in English and Arabic, light and dark; returns every violation as "rule (impact) on page: node". */
async function check(page: Page, app: App, name: string, path: string): Promise<string[]> {
  const found: string[] = [];
  for (const locale of ["en", "ar"]) {
    await page.goto(`${app.origin}${locale === "en" ? "" : `/${locale}`}${path}`);
    assert.equal(await page.getAttribute("html", "dir"), locale === "ar" ? "rtl" : "ltr");
    await page.evaluate(`document.querySelectorAll("details[data-unchanged]").forEach((d) => { d.open = true; })`);
    for (const colorScheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme });
      const label = `${app.name}-${locale}-${colorScheme}-${name}`;
      if (SHOTS !== undefined) await page.screenshot({ path: join(SHOTS, `preview-${label}.png`), fullPage: true });
      for (const v of await axeViolations(page)) for (const node of v.nodes) found.push(`${v.rule} (${v.impact}) on ${label}: ${node}`);
    }
  }
  return found;
}

describe("the approval page of a resource write (browser, axe)", { skip: hasChromium ? false : "no system Chromium" }, () => {
  let browser: Browser | undefined;
  const apps: Demo[] = [];
  after(async () => {
    await browser?.close();
    for (const app of apps) await app.close();
  });

  for (const name of ["demo", "starter"]) {
    it(`${name}: an update, a stale update, a create and a delete pass axe in light and dark, English and Arabic`, async () => {
      if (SHOTS !== undefined) mkdirSync(SHOTS, { recursive: true });
      const app: App = Object.assign(name === "demo" ? await startDemo() : await startGuide(), { name });
      apps.push(app);
      browser ??= await launchBrowser();
      const { page } = await watchedPage(await browser.newContext());
      if (name === "starter") await addVirtualAuthenticator(page);
      await signInByLink(page, app, `ada-preview-${name}@example.com`);
      await page.waitForURL(`${app.origin}/account`);
      const token = await mintTokenInBrowser(page, app, "ledger", "write");
      // The starter's expenses point to a project; the demo's have a category.
      const extra: Record<string, string> =
        name === "starter" ? { project: await createIn(page, app, "/projects", { name: "Garden shed" }) } : { category: "travel" };
      const id = await createIn(page, app, "/expenses", { label: "Train to Lyon", amount: "12.50", spent_on: "2026-03-01", ...extra });
      const read = await callTool(app, token, "expenses_read", { id });
      const { version } = (read.body as { result: { version: number } }).result;

      const found: string[] = [];
      const update = await pending(app, token, "expenses_update", { id, version, amount: "15.00", label: "Train to Lyon (return)" });
      found.push(...(await check(page, app, "update", update)));
      const create = await pending(app, token, "expenses_create", { label: "قطار إلى ليون", amount: "80.00", ...extra });
      found.push(...(await check(page, app, "create", create)));
      const remove = await pending(app, token, "expenses_delete", { id });
      found.push(...(await check(page, app, "delete", remove)));
      // The person edits the record meanwhile: the update waiting is stale.
      await page.goto(`${app.origin}/expenses/${id}`);
      await page.fill('[name="label"]', "Train to Lyon and back");
      await page.click(`form[data-resource] button[type="submit"]`);
      await page.waitForSelector("[data-outcome]");
      await page.goto(`${app.origin}${update}`);
      await page.waitForSelector('[data-outcome="stale"]');
      assert.equal(await page.evaluate(`document.querySelector('[data-approval="approve"]')`), null, "nothing to approve");
      found.push(...(await check(page, app, "stale", update)));
      assert.deepEqual(found, [], `${found.length} serious or critical WCAG 2.1 A/AA violations:\n${found.join("\n")}`);
    });
  }
});
