/*
 * The demo's expenses and notes in real headless Chromium, in English and
 * in Arabic (right to left), with JavaScript on and off: a person follows
 * the account page's links, creates, filters and edits records through the
 * plain forms, sees an inline error keep what they typed, and the pages
 * render without console errors. Screenshots are written to a directory
 * under the OS temp dir (printed) for a person to look at.
 */
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { hasChromium, launchBrowser, watchedPage, type Browser } from "../_support/browser.ts";
import { signInByLink, startDemo, type Demo } from "../_support/demo.ts";

describe("demo resources (browser)", { skip: hasChromium ? false : "no system Chromium" }, () => {
  let demo: Demo;
  let browser: Browser;
  const shots = mkdtempSync(join(tmpdir(), "latch-resources-shots-"));
  before(async () => {
    demo = await startDemo();
    browser = await launchBrowser();
    console.log(`# screenshots: ${shots}`);
  });
  after(async () => {
    await browser?.close();
    await demo?.close();
  });

  for (const [locale, javaScript] of [
    ["en", true],
    ["ar", true],
    ["en", false],
    ["ar", false],
  ] as const) {
    it(`walks expenses and notes in ${locale}, JavaScript ${javaScript ? "on" : "off"}`, async () => {
      const { page, errors } = await watchedPage(await browser.newContext({ javaScriptEnabled: javaScript }));
      const shot = (name: string): Promise<unknown> =>
        page.screenshot({ path: join(shots, `${locale}-${javaScript ? "js" : "nojs"}-${name}.png`), fullPage: true });
      const who = `${locale}-${javaScript ? "js" : "nojs"}@example.com`;
      await signInByLink(page, demo, who);
      await page.waitForURL(`${demo.origin}/account`);
      if (locale === "ar") {
        await page.selectOption("form.language select", "ar");
        await page.click('form.language button[type="submit"]');
        await page.waitForSelector('html[dir="rtl"]');
      }
      await page.click('a[data-resource-link="expenses"]');
      await page.waitForSelector("[data-empty]");
      await shot("expenses-empty");
      await page.click('a[href="/expenses/new"]');
      await page.fill('input[name="label"]', "Lunch");
      await page.fill('input[name="amount"]', "12.345");
      await page.click('form[data-resource="expenses"] button[type="submit"]');
      await page.waitForSelector('[data-error-for="amount"]');
      assert.equal(await page.getAttribute('input[name="amount"]', "value"), "12.345");
      await shot("expenses-error");
      await page.fill('input[name="amount"]', "12.34");
      await page.click('form[data-resource="expenses"] button[type="submit"]');
      await page.waitForSelector("section[data-record-id]");
      assert.equal(await page.getAttribute('input[name="amount"]', "value"), "12.34");
      await page.goto(`${demo.origin}/expenses/new`);
      await page.fill('input[name="label"]', "Train");
      await page.fill('input[name="amount"]', "1,234.56");
      await page.click('form[data-resource="expenses"] button[type="submit"]');
      await page.waitForSelector("section[data-record-id]");
      await page.goto(`${demo.origin}/expenses`);
      await page.fill('input[name="amount_min"]', "100");
      await page.click('form[role="search"] button[type="submit"]');
      await page.waitForURL(/amount_min=100/);
      assert.equal((await page.content()).match(/data-record-id=/g)?.length, 1);
      await shot("expenses-filtered");
      await page.goto(`${demo.origin}/expenses`);
      await shot("expenses-list");

      await page.goto(`${demo.origin}/notes/new`);
      await page.fill('input[name="title"]', "Plan");
      await page.fill('textarea[name="body"]', "one\ntwo\nthree");
      await page.click('form[data-resource="notes"] button[type="submit"]');
      await page.waitForSelector("section[data-record-id]");
      await page.fill('textarea[name="body"]', "one\nTWO\nthree");
      await page.click('form[data-resource="notes"] button[type="submit"]');
      await page.waitForSelector('[data-outcome="saved"]');
      assert.equal(await page.textContent('textarea[name="body"]'), "one\nTWO\nthree");
      await shot("note-saved");
      assert.equal(await page.getAttribute("html", "dir"), locale === "ar" ? "rtl" : "ltr");
      // The deliberate 422 of the bad amount is reported by Chromium as a failed load; nothing else may be.
      assert.deepEqual(
        errors.filter((e) => !e.includes("status of 422")),
        [],
      );
      await page.context().close();
    });
  }
});
