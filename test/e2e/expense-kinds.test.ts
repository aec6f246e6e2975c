/*
 * The demo's expense form with a date and a category (issue 25) in real
 * headless Chromium, in German: the native date input and select post what
 * the server reads (ISO date, the choice's value), amounts in German
 * notation, and the list shows the day as German writes it and the
 * category's German label, filtered by category and date range through the
 * filter form. Screenshots go to a directory under the OS temp dir (printed).
 */
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { hasChromium, launchBrowser, watchedPage, type Browser } from "../_support/browser.ts";
import { signInByLink, startDemo, type Demo } from "../_support/demo.ts";

describe("demo expense date and category (browser)", { skip: hasChromium ? false : "no system Chromium" }, () => {
  let demo: Demo;
  let browser: Browser;
  const shots = mkdtempSync(join(tmpdir(), "latch-kinds-shots-"));
  before(async () => {
    demo = await startDemo();
    browser = await launchBrowser();
    console.log(`# screenshots: ${shots}`);
  });
  after(async () => {
    await browser?.close();
    await demo?.close();
  });

  it("creates, lists and filters expenses by day and category in German", async () => {
    const { page, errors } = await watchedPage(await browser.newContext({ javaScriptEnabled: true }));
    await signInByLink(page, demo, "kinds-de@example.com");
    await page.waitForURL(`${demo.origin}/account`);
    await page.selectOption("form.language select", "de");
    await page.click('form.language button[type="submit"]');
    await page.waitForSelector('html[lang="de"]');

    const create = async (label: string, amount: string, day: string, category: string): Promise<void> => {
      await page.goto(`${demo.origin}/expenses/new`);
      await page.fill('input[name="label"]', label);
      await page.fill('input[name="amount"]', amount);
      await page.fill('input[name="spent_on"]', day);
      await page.selectOption('select[name="category"]', category);
      await page.click('form[data-resource="expenses"] button[type="submit"]');
      await page.waitForSelector("section[data-record-id]");
    };
    await create("Hotel", "1.234,50", "2026-12-31", "travel");
    assert.equal(await page.getAttribute('input[name="spent_on"]', "value"), "2026-12-31");
    assert.equal(await page.getAttribute('select[name="category"] option[selected]', "value"), "travel");
    await page.screenshot({ path: join(shots, "de-record.png"), fullPage: true });
    await create("Mittagessen", "12", "2026-11-02", "meals");

    await page.goto(`${demo.origin}/expenses?sort=spent_on&dir=asc`);
    const list = await page.content();
    assert.match(list, /<td>02\.11\.2026<\/td><td>Verpflegung<\/td>/);
    assert.match(list, /<td>31\.12\.2026<\/td><td>Reisen<\/td>/);
    assert.match(list, /1\.234,50/);
    await page.screenshot({ path: join(shots, "de-list.png"), fullPage: true });

    await page.selectOption('select[name="category"]', "meals");
    await page.click('form[role="search"] button[type="submit"]');
    await page.waitForURL(/category=meals/);
    assert.equal((await page.content()).match(/<tr data-record-id=/g)?.length, 1);
    await page.goto(`${demo.origin}/expenses`);
    await page.fill('input[name="spent_on_min"]', "2026-12-01");
    await page.click('form[role="search"] button[type="submit"]');
    await page.waitForURL(/spent_on_min=2026-12-01/);
    const filtered = await page.content();
    assert.equal(filtered.match(/<tr data-record-id=/g)?.length, 1);
    assert.match(filtered, /Hotel/);
    await page.screenshot({ path: join(shots, "de-filtered.png"), fullPage: true });
    assert.deepEqual(errors, []);
  });
});
