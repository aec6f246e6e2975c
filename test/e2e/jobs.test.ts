/*
 * Background jobs end to end in the demo: real Chromium starts a job from
 * /account; the status page follows it by server push (EventSource) and
 * lands on the job's Location; a failing job shows its error; and with
 * JavaScript off the no-script meta refresh alone reaches the end.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { hasChromium, launchBrowser, watchedPage, type Browser, type WatchedPage } from "../_support/browser.ts";
import { signInByLink, startDemo, type Demo } from "../_support/demo.ts";

// 10 steps of 300 ms: long enough to watch the bar move, short for a test.
const STEP_MS = 300;

describe("background jobs in the demo (browser)", { skip: hasChromium ? false : "no system Chromium" }, () => {
  let demo: Demo;
  let browser: Browser;

  before(async () => {
    demo = await startDemo({ JOB_STEP_MS: String(STEP_MS) });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await demo?.close();
  });

  async function signedIn(address: string, javaScriptEnabled: boolean): Promise<WatchedPage> {
    const watched = await watchedPage(await browser.newContext({ javaScriptEnabled }));
    await signInByLink(watched.page, demo, address);
    await watched.page.waitForURL(`${demo.origin}/account`);
    return watched;
  }

  // Attribute selectors, not waitForFunction: the page's CSP (no 'unsafe-eval') forbids evaluating strings in it.
  const bar = (values: number[]): string => `progress:is(${values.map((v) => `[value="${v}"]`).join(", ")})`;
  const value = (page: WatchedPage["page"]): Promise<string | null> => page.getAttribute("progress", "value");

  it("shows a progress bar that advances by push and lands on /account?job=done", async () => {
    const { page, visited, errors } = await signedIn("grace@example.com", true);
    await page.click('form[action="/jobs"] button[value="ok"]');
    await page.waitForURL(/\/jobs\/[^/?]+$/);
    const statusPage = page.url();
    await page.waitForSelector(bar([10, 20, 30, 40, 50]));
    const early = Number(await value(page));
    // Read while the job is half done: at 100 the page may already be on its way to /account (a busy host).
    assert.match((await page.textContent(".job-progress")) ?? "", /^\d+\/10$/, "the progress text carries a fraction");
    await page.waitForSelector(bar([60, 70, 80, 90, 100]));
    const later = Number(await value(page));
    assert.ok(early >= 10 && later > early, `${early} then ${later}`);
    // Not waitForURL: lib/client/jobs.js can start the same navigation twice (the `done`
    // event and an in-flight fragment fetch answering 204 both call finish), and
    // Playwright fails a wait whose navigation was superseded. Wait for the account page.
    await page.waitForSelector("body[data-subject]");
    assert.equal(page.url(), `${demo.origin}/account?job=done`);
    assert.ok(
      // Under the page's locale, "/en" here (examples/starter/pages/jobs.ts).
      visited.some((u) => u === `${demo.origin}/en${new URL(statusPage).pathname}/events`),
      "the page followed the event stream",
    );
    assert.equal(visited.filter((u) => u === statusPage).length, 1, "no reload of the status page");
    assert.deepEqual(errors, []);
  });

  it("shows the error text of a failing job and stays on its page", async () => {
    const { page, errors } = await signedIn("hopper@example.com", true);
    await page.click('form[action="/jobs"] button[value="fail"]');
    await page.waitForURL(/\/jobs\/[^/?]+$/);
    const statusPage = page.url();
    await page.waitForSelector(".job-error");
    assert.equal(await page.textContent(".job-error"), "the demo job failed on purpose halfway through");
    assert.equal(await page.getAttribute(".job-status", "data-status"), "failed");
    // A failed job looks failed: no spinner icon anywhere on the page (the stylesheet draws one only for data-status=running).
    assert.equal(await page.evaluate(`document.querySelectorAll("svg.icon-spinner").length`), 0);
    assert.equal(await page.evaluate(`getComputedStyle(document.querySelector(".job-status strong"), "::before").content`), '"✕ "');
    assert.equal(page.url(), statusPage);
    assert.deepEqual(errors, []);
  });

  it("reaches the end by meta refresh alone with JavaScript disabled", async () => {
    const { page, visited } = await signedIn("lovelace@example.com", false);
    await page.click('form[action="/jobs"] button[value="ok"]');
    await page.waitForURL(/\/jobs\/[^/?]+$/);
    const statusPage = page.url();
    assert.match(await page.content(), /<meta http-equiv="refresh" content="\d+">/);
    await page.waitForURL(`${demo.origin}/account?job=done`);
    assert.ok(visited.filter((u) => u === statusPage).length >= 2, "the page reloaded itself");
    assert.ok(!visited.some((u) => u.endsWith("/events") || u.endsWith("/fragment")), "no script fetched anything");
  });

  it("logged no server error", () => {
    assert.deepEqual(demo.errorLogs(), []);
  });
});

// Steps of 1.5 s: the page is opened again under /ar while the job still runs, and its first step's update arrives there.
describe("a background job's page in Arabic (browser)", { skip: hasChromium ? false : "no system Chromium" }, () => {
  let demo: Demo;
  let browser: Browser;
  before(async () => {
    demo = await startDemo({ JOB_STEP_MS: "1500" });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await demo?.close();
  });

  const bar = (values: number[]): string => `progress:is(${values.map((v) => `[value="${v}"]`).join(", ")})`;

  it("keeps a page opened in Arabic in Arabic as its fragment is fetched again", async () => {
    const { page, errors } = await watchedPage(await browser.newContext());
    await signInByLink(page, demo, "khwarizmi@example.com");
    await page.waitForURL(`${demo.origin}/account`);
    await page.click('form[action="/jobs"] button[value="ok"]');
    await page.waitForURL(/\/jobs\/[^/?]+$/);
    const path = new URL(page.url()).pathname;
    // The demo's job says "0/10" as it starts: the bar is there from the first render.
    assert.notEqual(await page.getAttribute("progress", "value"), null);
    await page.goto(`${demo.origin}/ar${path}`);
    // The fragment and the stream carry the page's locale prefix, so an update reads as the page did.
    assert.equal(await page.getAttribute("[data-poll-push]", "data-poll"), `/ar${path}/fragment`);
    assert.equal(await page.getAttribute("[data-poll-push]", "data-poll-push"), `/ar${path}/events`);
    // So does the header's count of waiting calls.
    assert.equal(await page.getAttribute("header [data-poll]", "data-poll"), "/ar/account/approvals/waiting");
    await page.waitForSelector(bar([10, 20, 30, 40, 50, 60, 70, 80, 90]));
    assert.equal(await page.textContent(".job-status strong"), "جارٍ العمل…");
    assert.equal(await page.getAttribute("progress", "aria-label"), "جارٍ العمل… demo");
    // The job page carries the demo's navigation, as its other signed-in pages do.
    assert.deepEqual(await page.evaluate(`[...document.querySelectorAll("header nav a")].map((a) => a.getAttribute("href"))`), [
      "/account",
      "/expenses",
      "/notes",
      "/teams",
      "/account/agents",
      "/account/approvals",
      "/account/activity",
      "/account/security",
    ]);
    assert.deepEqual(errors, []);
  });
});
