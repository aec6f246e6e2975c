/*
 * Live pages in real headless Chromium (issue 25 item 5): two pages on one
 * record, a write elsewhere (another page, the person's agent after
 * approval) shows on the open page without reload; a page whose stream is
 * cut (page.route abort) polls instead; a Mergeable form being edited says
 * the record changed underneath and merges on save, never overwriting what
 * was typed; an Exclusive one lists the new values and keeps the input; a
 * list takes in a new row. Waits are for the DOM, never for a time.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { hasChromium, launchBrowser, watchedPage, type Browser, type Page } from "../_support/browser.ts";
import { mintTokenInBrowser, signInByLink, startDemo, type Demo } from "../_support/demo.ts";
import { sendRequest } from "../_support/http-client.ts";

const value = (page: Page, selector: string): Promise<unknown> =>
  page.evaluate(`document.querySelector(${JSON.stringify(selector)}).value`);

async function createNote(page: Page, demo: Demo, title: string, body: string): Promise<string> {
  await page.goto(`${demo.origin}/notes/new`);
  await page.fill('input[name="title"]', title);
  await page.fill('textarea[name="body"]', body);
  await page.click('form[data-resource="notes"] button[type="submit"]');
  await page.waitForSelector("section[data-record-id]");
  return page.url().replace(/\?.*$/, "");
}

async function createExpense(page: Page, demo: Demo, label: string, amount: string): Promise<string> {
  await page.goto(`${demo.origin}/expenses/new`);
  await page.fill('input[name="label"]', label);
  await page.fill('input[name="amount"]', amount);
  await page.click('form[data-resource="expenses"] button[type="submit"]');
  await page.waitForSelector("section[data-record-id]");
  return page.url().replace(/\?.*$/, "");
}

/** Edits the record open in `page` and saves it. */
async function save(page: Page, fields: Record<string, string>): Promise<void> {
  for (const [name, text] of Object.entries(fields)) await page.fill(`[name="${name}"]`, text);
  await page.click("form.resource-form button[type='submit']");
  await page.waitForURL(/saved=1/);
}

describe("live pages (browser)", { skip: hasChromium ? false : "no system Chromium" }, () => {
  let demo: Demo;
  let browser: Browser;
  before(async () => {
    demo = await startDemo();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await demo?.close();
  });

  it("shows another page's save and the agent's approved write on an open note, and merges under a dirty form", async () => {
    const context = await browser.newContext();
    const { page: open, errors } = await watchedPage(context);
    await signInByLink(open, demo, "live-notes@example.com");
    await open.waitForURL(`${demo.origin}/account`);
    const other = await context.newPage();
    const url = await createNote(other, demo, "Plan", "one\ntwo");
    await open.goto(url);
    await open.waitForSelector('[data-live-state="streaming"]');

    // Another page saves: the open page shows the value without reload.
    await save(other, { title: "Plan B" });
    await open.waitForSelector('[data-live-notice="updated"]');
    assert.equal(await value(open, 'input[name="title"]'), "Plan B");
    assert.equal(await open.textContent("h1"), "Plan B");

    // The person's agent writes after approval: the open page shows it too.
    const token = await mintTokenInBrowser(other, demo, "claude", "write");
    const id = url.split("/").pop() ?? "";
    const version = Number(await open.getAttribute('input[name="version"]', "value"));
    const call = () =>
      sendRequest(
        demo.origin,
        "POST",
        "/api/tools/notes_update",
        {
          headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
          body: JSON.stringify({ id, version, title: "Plan by agent" }),
        },
        demo.origin,
      );
    const held = await call();
    assert.equal(held.status, 202, held.body);
    await other.goto((JSON.parse(held.body) as { approval_url: string }).approval_url);
    await other.click('button[data-approval="approve"]');
    await other.waitForSelector('[data-outcome="approved"]');
    assert.equal((await call()).status, 200);
    // The shim sets the value it shows as the input's value attribute too (so the form counts as untouched).
    await open.waitForSelector('input[name="title"][value="Plan by agent"]');

    // The person is editing the body when the title changes elsewhere: their text stays, the page offers the merge.
    await open.fill('textarea[name="body"]', "one\ntwo\nthree");
    await other.goto(url);
    await save(other, { title: "Plan C" });
    await open.waitForSelector('[data-live-notice="changed"]');
    assert.equal(await value(open, 'textarea[name="body"]'), "one\ntwo\nthree");
    assert.equal(await value(open, 'input[name="title"]'), "Plan by agent", "the form is never overwritten");
    await open.click("[data-live-merge]");
    await open.waitForURL(/saved=1/);
    assert.equal(await value(open, 'input[name="title"]'), "Plan C");
    assert.equal(await value(open, 'textarea[name="body"]'), "one\ntwo\nthree");
    assert.deepEqual(errors, []);
    await context.close();
  });

  it("polls when the stream is cut, keeps an Exclusive form's input, and refreshes a list", async () => {
    const context = await browser.newContext();
    const { page: open, errors } = await watchedPage(context);
    await signInByLink(open, demo, "live-expenses@example.com");
    await open.waitForURL(`${demo.origin}/account`);
    const other = await context.newPage();
    const url = await createExpense(other, demo, "Lunch", "12.34");
    await open.route(/\/expenses\/events$/, (route) => route.abort());
    await open.goto(url);
    await open.waitForSelector('[data-live-state="polling"]');
    assert.equal(await open.getAttribute("[data-live]", "data-live-every"), "5");

    await save(other, { label: "Lunch with Ada" });
    await open.waitForSelector('input[name="label"][value="Lunch with Ada"]');

    // Editing when it changes again: the input stays and the new values are listed; saving is the 409 with both.
    await open.fill('input[name="label"]', "Mine");
    await other.goto(url);
    await save(other, { amount: "20.00" });
    await open.waitForSelector('[data-live-notice="changed"]');
    assert.equal(await value(open, 'input[name="label"]'), "Mine");
    assert.equal(await open.textContent('[data-live-current-for="amount"]'), "20.00");
    await open.click("form.resource-form button[type='submit']");
    await open.waitForSelector('[data-outcome="stale"]');

    // A list follows new records.
    await other.goto(`${demo.origin}/expenses`);
    await other.waitForSelector('[data-live-state="streaming"]');
    const rows = async (): Promise<unknown> => other.evaluate(`document.querySelectorAll("tr[data-record-id]").length`);
    assert.equal(await rows(), 1);
    const third = await context.newPage();
    await createExpense(third, demo, "Train", "40");
    await other.waitForSelector("tr[data-record-id]:nth-child(2)");
    // Expected in the console: the cut stream's failures and the stale save's 409.
    assert.deepEqual(
      errors.filter((e) => !/ERR_FAILED|\/events|409 \(Conflict\)/.test(e)),
      [],
    );
    await context.close();
  });
});
