/*
 * The passkey second factor end to end: real headless Chromium with a CDP
 * virtual authenticator, against the demo's real entry point (its own
 * child process, database and SMTP server). One account walks the whole
 * story in order: link sign-in, enrolment, recovery codes, passkey sign-in,
 * a stale session refused new recovery codes, step-up of a stale session,
 * and recovery-code sign-ins (with the first set: the stale attempt replaced nothing).
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { OpenDB } from "../../lib/db/index.ts";
import {
  addVirtualAuthenticator,
  hasChromium,
  launchBrowser,
  watchedPage,
  type Browser,
  type Page,
  type WatchedPage,
} from "../_support/browser.ts";
import { signInByLink, signOut, startDemo, type Demo } from "../_support/demo.ts";

const ADDRESS = "ada@example.com";
// The demo's freshness window in this test: no step lapses it however loaded the
// machine is. The session goes stale when the test moves its sign-in back past it.
const FRESH_SECONDS = 600;

async function method(page: Page): Promise<string | null> {
  return page.getAttribute("body", "data-method");
}

/** Moves every session's sign-in time (AuthTime) back by `seconds`, as if that long had passed since. */
function ageSessions(demo: Demo, seconds: number): void {
  const db = OpenDB(join(demo.stateDir, "demo.db"));
  try {
    db.prepare("UPDATE sessions SET auth_time = auth_time - ?").run(seconds * 1000);
  } finally {
    db.close();
  }
}

describe("passkey sign-in in the demo (browser)", { skip: hasChromium ? false : "no system Chromium" }, () => {
  let demo: Demo;
  let browser: Browser;
  let watched: WatchedPage;
  let page: Page;
  let codes: string[] = [];

  before(async () => {
    demo = await startDemo({ FRESH_SECONDS: String(FRESH_SECONDS) });
    browser = await launchBrowser();
    watched = await watchedPage(await browser.newContext());
    page = watched.page;
    await addVirtualAuthenticator(page);
  });
  after(async () => {
    await browser?.close();
    await demo?.close();
  });

  it("signs in by emailed link to a magiclink session", async () => {
    await signInByLink(page, demo, ADDRESS);
    await page.waitForURL(`${demo.origin}/account`);
    assert.equal(await page.getAttribute("body", "data-subject"), ADDRESS);
    assert.equal(await method(page), "magiclink");
  });

  it("adds a passkey with the page's button", async () => {
    assert.equal(await page.evaluate(`document.querySelectorAll("li[data-credential]").length`), 0);
    await page.click('button[data-passkey="register"]');
    await page.waitForSelector("li[data-credential]");
    assert.equal(page.url(), `${demo.origin}/account`);
    assert.equal(await page.evaluate(`document.querySelectorAll("li[data-credential]").length`), 1);
    // The first passkey leads to recovery codes.
    await page.waitForSelector('[data-outcome="codes-needed"]');
  });

  it("shows ten recovery codes once", async () => {
    await page.click('form[action="/account/recovery-codes"] button');
    await page.waitForSelector("ul.codes code");
    const found = await page.evaluate(`[...document.querySelectorAll("ul.codes code")].map((c) => c.textContent)`);
    assert.ok(Array.isArray(found));
    codes = found.map(String);
    assert.equal(codes.length, 10);
    for (const code of codes) assert.match(code, /^[2-9a-z]{4}-[2-9a-z]{4}-[2-9a-z]{4}-[2-9a-z]{4}$/);
    await page.goto(`${demo.origin}/account`);
    assert.equal(await page.evaluate(`document.querySelectorAll("ul.codes code").length`), 0, "shown once");
    assert.equal(await page.getAttribute("[data-recovery-remaining]", "data-recovery-remaining"), "10");
  });

  it("asks for the passkey after the link, and signs in as magiclink+passkey", async () => {
    await signOut(page, demo);
    await signInByLink(page, demo, ADDRESS);
    await page.waitForURL(`${demo.origin}/confirm`);
    assert.equal(await page.evaluate(`document.body.hasAttribute("data-subject")`), false, "no session yet");
    await page.click('button[data-passkey="signin"]');
    await page.waitForURL(`${demo.origin}/account`);
    assert.equal(await method(page), "magiclink+passkey");
    // People see words, not ids, in every language.
    assert.match((await page.textContent("main")) ?? "", /Signed in with email link \+ passkey/);
    await page.goto(`${demo.origin}/ar/account`);
    assert.ok(((await page.textContent("main")) ?? "").includes("رابط عبر البريد + مفتاح مرور"));
    assert.doesNotMatch((await page.textContent("main")) ?? "", /magiclink/);
  });

  it("sends a stale session to /stepup instead of regenerating recovery codes", async () => {
    // A sign-in one second older than the window is stale.
    ageSessions(demo, FRESH_SECONDS + 1);
    await page.goto(`${demo.origin}/account`);
    await page.click('form[action="/account/recovery-codes"] button');
    await page.waitForURL(/\/stepup$/);
    await page.goto(`${demo.origin}/account`);
    assert.equal(await page.evaluate(`document.querySelectorAll("ul.codes code").length`), 0);
    assert.equal(await page.getAttribute("[data-recovery-remaining]", "data-recovery-remaining"), "10");
  });

  it("sends a stale session to /stepup and rotates it to a fresh passkey session", async () => {
    await page.goto(`${demo.origin}/account/security`);
    await page.waitForURL(/\/stepup\?next=%2Faccount%2Fsecurity$/);
    await page.click('button[data-passkey="stepup"]');
    await page.waitForURL(`${demo.origin}/account/security`);
    assert.equal(await method(page), "passkey");
    // The security page lists the sessions (their methods in words) and the passkeys.
    assert.equal(await page.evaluate(`document.querySelectorAll("li[data-credential]").length`), 1);
    assert.ok(Number(await page.evaluate(`document.querySelectorAll("[data-session-id]").length`)) >= 1);
    assert.doesNotMatch((await page.textContent("ul.sessions")) ?? "", /magiclink/);
  });

  it("follows only a same-origin destination after a ceremony, else reloads", async () => {
    const here = `${demo.origin}/stepup?next=%2Faccount`;
    await page.goto(here);
    await page.evaluate(
      `document.querySelector('button[data-passkey="stepup"]').setAttribute("data-next", "http://127.0.0.1:1/elsewhere")`,
    );
    await page.evaluate(`document.body.setAttribute("data-before-reload", "")`);
    await page.click('button[data-passkey="stepup"]');
    await page.waitForSelector("body:not([data-before-reload])");
    assert.equal(page.url(), here);
  });

  it("shows a ceremony's message next to its own button", async () => {
    await page.goto(`${demo.origin}/account`);
    await page.evaluate(`document.body.insertAdjacentHTML("afterbegin", '<p data-passkey-status id="decoy"></p>')`);
    // The authenticator already holds a credential in excludeCredentials, so create() fails.
    await page.click('button[data-passkey="register"]');
    await page.waitForSelector("section [data-passkey-status]:not(:empty)");
    assert.equal(await page.textContent("#decoy"), "");
  });

  it("signs in with a recovery code as magiclink+recovery", async () => {
    await signOut(page, demo);
    await signInByLink(page, demo, ADDRESS);
    await page.waitForURL(`${demo.origin}/confirm`);
    await page.fill("#code", codes[0] ?? "");
    await page.click('form[action="/passkey/signin/recovery"] button[type="submit"]');
    await page.waitForURL(`${demo.origin}/account`);
    assert.equal(await method(page), "magiclink+recovery");
    assert.equal(await page.getAttribute("[data-recovery-remaining]", "data-recovery-remaining"), "9");
  });

  it("refuses a spent code and keeps the pending sign-in for another code", async () => {
    await signOut(page, demo);
    await signInByLink(page, demo, ADDRESS);
    await page.waitForURL(`${demo.origin}/confirm`);
    await page.fill("#code", codes[0] ?? "");
    await page.click('form[action="/passkey/signin/recovery"] button[type="submit"]');
    await page.waitForURL(`${demo.origin}/confirm?recovery=failed`);
    await page.waitForSelector('[data-outcome="recovery-failed"]');
    await page.fill("#code", codes[1] ?? "");
    await page.click('form[action="/passkey/signin/recovery"] button[type="submit"]');
    await page.waitForURL(`${demo.origin}/account`);
    assert.equal(await method(page), "magiclink+recovery");
  });

  it("ran under the CSP with no inline script, no console error and no server error", async () => {
    assert.ok(watched.policies.length > 10);
    for (const csp of watched.policies) {
      assert.match(csp, /script-src 'self'(;|$)/);
      assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    }
    assert.equal(await page.evaluate(`[...document.scripts].filter((s) => !s.src).length`), 0);
    assert.deepEqual(watched.failures, []);
    assert.deepEqual(watched.errors, []);
    assert.deepEqual(demo.errorLogs(), []);
  });
});
