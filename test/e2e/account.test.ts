/*
 * A change of address in the demo, in real headless Chromium over a real
 * SMTP server (issue 24, "How it is judged"): confirmed from the new
 * inbox, the notice received at the old one; signed in at the new address
 * the person finds their sessions, tokens, expenses, notes and activity;
 * the old address owns nothing; the old inbox's link moves the account
 * back and ends every session; a second use of either link is refused.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { OpenDB } from "../../lib/db/index.ts";
import { hasChromium, launchBrowser, watchedPage, type Browser } from "../_support/browser.ts";
import { mintTokenInBrowser, signInByLink, startDemo, type Demo } from "../_support/demo.ts";
import { scanRows } from "../account/harness.ts";

const OLD = "ada-e2e@example.com";
const count = (text: string, needle: string): number => text.split(needle).length - 1;
const NEW = "ada-moved@example.net";

describe("demo: change of address (browser)", { skip: hasChromium ? false : "no system Chromium" }, () => {
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

  const mailTo = async (address: string, after: number): Promise<string> => {
    const m = await demo.smtp.waitForMessage((msg) => demo.smtp.messages.indexOf(msg) >= after && msg.to.includes(address));
    return m.parsed.text ?? "";
  };

  it("moves everything to the new address, and the old inbox moves it back once", async () => {
    const { page, errors } = await watchedPage(await browser.newContext());
    await signInByLink(page, demo, OLD);
    await page.waitForURL(`${demo.origin}/account`);
    await page.goto(`${demo.origin}/expenses/new`);
    await page.fill('input[name="label"]', "Train");
    await page.fill('input[name="amount"]', "12.50");
    await page.click('form[data-resource="expenses"] button[type="submit"]');
    await page.waitForSelector("section[data-record-id]");
    await page.goto(`${demo.origin}/notes/new`);
    await page.fill('input[name="title"]', "Plan");
    await page.fill('textarea[name="body"]', "one");
    await page.click('form[data-resource="notes"] button[type="submit"]');
    await page.waitForSelector("section[data-record-id]");
    await mintTokenInBrowser(page, demo, "claude", "read");

    await page.goto(`${demo.origin}/account`);
    await page.click('a[data-account-link="address"]');
    await page.waitForSelector('form[data-account-form="address"]');
    const asked = demo.smtp.messages.length;
    await page.fill('form[data-account-form="address"] input[name="email"]', NEW);
    await page.click('form[data-account-form="address"] button[type="submit"]');
    await page.waitForSelector('[data-outcome="address-sent"]');
    const confirm = /http:\/\/\S+\/account\/address\/confirm\?token=[A-Za-z0-9_-]+/.exec(await mailTo(NEW, asked))?.[0] ?? "";
    assert.notEqual(confirm, "", "the new inbox gets the link");
    assert.match(await mailTo(OLD, asked), new RegExp(NEW.replace(/\./g, "\\.")), "the old inbox is told");

    const confirmed = demo.smtp.messages.length;
    await page.goto(confirm);
    await page.waitForSelector('[data-outcome="address-changed"]');
    assert.equal(await page.getAttribute("[data-account-address]", "data-account-address"), NEW);
    const undo = /http:\/\/\S+\/account\/address\/undo\?token=[A-Za-z0-9_-]+/.exec(await mailTo(OLD, confirmed))?.[0] ?? "";
    assert.notEqual(undo, "", "the old inbox gets the way back");
    await page.goto(confirm);
    await page.waitForSelector('[data-outcome="address-link"]');

    const db = OpenDB(join(demo.stateDir, "demo.db"));
    try {
      assert.deepEqual(scanRows(db, OLD), [], "the old address owns nothing (its events before the change stay in the append-only log)");
    } finally {
      db.close();
    }

    // A new browser signs in at the new address and finds everything.
    const { page: moved } = await watchedPage(await browser.newContext());
    await signInByLink(moved, demo, NEW);
    await moved.waitForURL(`${demo.origin}/account`);
    assert.equal(await moved.getAttribute("body", "data-subject"), NEW);
    await moved.goto(`${demo.origin}/expenses`);
    assert.match(await moved.content(), /Train/);
    await moved.goto(`${demo.origin}/notes`);
    assert.match(await moved.content(), /Plan/);
    await moved.goto(`${demo.origin}/account/agents`);
    assert.equal(count(await moved.content(), "data-agent-id="), 1);
    await moved.goto(`${demo.origin}/account/activity`);
    const activity = await moved.content();
    assert.ok(count(activity, 'data-type="auth.address_changed"') >= 1);
    assert.ok(count(activity, 'data-type="auth.signed_in"') >= 2, "the history before the move is there");
    await moved.goto(`${demo.origin}/account/security`);
    assert.equal(count(await moved.content(), "data-session-id="), 2);

    // The old inbox's link, opened anywhere: a page whose button moves the account back.
    const { page: inbox } = await watchedPage(await browser.newContext());
    await inbox.goto(undo);
    await inbox.click('form[data-account-form="undo"] button[type="submit"]');
    await inbox.waitForSelector('[data-outcome="account-reversed"]');
    await moved.goto(`${demo.origin}/account`);
    await moved.waitForURL(/\/signin$/);
    await page.goto(`${demo.origin}/account`);
    await page.waitForURL(/\/signin$/);
    await inbox.goto(undo);
    await inbox.click('form[data-account-form="undo"] button[type="submit"]');
    await inbox.waitForSelector('[data-outcome="account-reverse_failed"]');
    const again = OpenDB(join(demo.stateDir, "demo.db"));
    try {
      assert.deepEqual(scanRows(again, NEW), [], "the new address owns nothing after the reversal but its history");
    } finally {
      again.close();
    }
    assert.deepEqual(errors, []);
  });
});
