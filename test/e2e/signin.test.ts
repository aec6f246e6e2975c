/*
 * Emailed sign-in against the demo's real entry point (its own process,
 * database and SMTP server), with real headless Chromium: a scanner that
 * opens the link with JavaScript on and presses everything it finds gets
 * no session and spends nothing; the person's own browser then signs in
 * with the same link; the code read on another device signs the asking
 * browser in; the sessions page lists and ends sessions.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { hasChromium, launchBrowser, watchedPage, type Browser, type BrowserContext, type Page } from "../_support/browser.ts";
import { requestSignin, startDemo, type Demo } from "../_support/demo.ts";
import { sendRequest } from "../_support/http-client.ts";

/** Presses every button and submits every form on the page, as an aggressive link scanner does; returns how many it found. */
async function pressEverything(page: Page): Promise<number> {
  const found = await page.evaluate(`(() => {
    const buttons = [...document.querySelectorAll("button, input[type=submit], input[type=button], [role=button]")];
    const forms = [...document.querySelectorAll("form")];
    for (const b of buttons) b.click();
    for (const f of forms) f.submit();
    return buttons.length + forms.length;
  })()`);
  return Number(found);
}

async function hasSession(context: BrowserContext): Promise<boolean> {
  return (await context.cookies()).some((c) => c.name.endsWith("framework_session"));
}

describe("emailed sign-in in the demo (browser)", { skip: hasChromium ? false : "no system Chromium" }, () => {
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

  it("a scanner with JavaScript pressing everything gets no session and spends nothing; the person's browser then signs in", async () => {
    const person = await browser.newContext();
    const mine = await person.newPage();
    const { link, code } = await requestSignin(mine, demo, "ada@example.com");

    const scannerContext = await browser.newContext({ javaScriptEnabled: true });
    const scanner = await watchedPage(scannerContext);
    const opened = await scanner.page.goto(link);
    assert.equal(opened?.status(), 200);
    assert.equal(opened?.headers()["cache-control"], "no-store");
    assert.equal(opened?.headers()["referrer-policy"], "no-referrer");
    assert.equal(await scanner.page.getAttribute("[data-signin-address]", "data-signin-address"), "ada@example.com");
    assert.equal(await scanner.page.getAttribute("[data-signin-code]", "data-signin-code"), code);
    assert.equal(await pressEverything(scanner.page), 0, "the page offers nothing to press");
    // Scanners also follow the page again and probe with other methods.
    await scanner.page.goto(link);
    assert.equal(await hasSession(scannerContext), false);
    await scanner.page.goto(`${demo.origin}/account`);
    assert.match(scanner.page.url(), /\/signin$/, "the scanner holds no session");
    const plain = await sendRequest(demo.origin, "GET", link, {}, demo.origin);
    assert.equal(plain.status, 200);
    assert.deepEqual(plain.setCookie, []);
    const head = await sendRequest(demo.origin, "HEAD", link, {}, demo.origin);
    assert.equal(head.status, 200);
    assert.deepEqual(scanner.errors, [], "no CSP violation or script error on the code page");

    await mine.goto(link);
    await mine.waitForURL(`${demo.origin}/account`);
    assert.equal(await mine.getAttribute("body", "data-subject"), "ada@example.com");
    assert.equal(await mine.getAttribute("body", "data-method"), "magiclink");
    await scannerContext.close();
    await person.close();
  });

  it("a victim's browser opening an attacker's link stays signed in as the victim", async () => {
    const victim = await browser.newContext();
    const page = await victim.newPage();
    const own = await requestSignin(page, demo, "vic@example.com");
    await page.goto(own.link);
    await page.waitForURL(`${demo.origin}/account`);
    const attacker = await browser.newContext();
    const bait = await requestSignin(await attacker.newPage(), demo, "eve@example.com");
    await page.goto(bait.link);
    await page.goto(`${demo.origin}/account`);
    assert.equal(await page.getAttribute("body", "data-subject"), "vic@example.com");
    await victim.close();
    await attacker.close();
  });

  it("signs the asking browser in with the code shown on another device", async () => {
    const laptop = await browser.newContext();
    const page = await laptop.newPage();
    const { link } = await requestSignin(page, demo, "kai@example.com");
    const phone = await browser.newContext();
    const phonePage = await phone.newPage();
    await phonePage.goto(link);
    const shown = await phonePage.getAttribute("[data-signin-code]", "data-signin-code");
    assert.match(shown ?? "", /^[0-9]{6}$/);
    await page.fill('form[action="/auth/code"] input[name="code"]', shown ?? "");
    await page.click('form[action="/auth/code"] button[type="submit"]');
    await page.waitForURL(`${demo.origin}/account`);
    assert.equal(await page.getAttribute("body", "data-method"), "emailcode");
    assert.equal(await hasSession(phone), false);
    await laptop.close();
    await phone.close();
  });

  it("lists the person's sessions on /account/security and ends one, then all others", async () => {
    const contexts = [await browser.newContext(), await browser.newContext(), await browser.newContext()];
    const pages: Page[] = [];
    for (const context of contexts) {
      const page = await context.newPage();
      const { link } = await requestSignin(page, demo, "sam@example.com");
      await page.goto(link);
      await page.waitForURL(`${demo.origin}/account`);
      pages.push(page);
    }
    const [me, second, third] = pages;
    assert.ok(me !== undefined && second !== undefined && third !== undefined);
    await me.goto(`${demo.origin}/account/security`);
    const ids = String(
      await me.evaluate(`[...document.querySelectorAll("[data-session-id]")].map((e) => e.getAttribute("data-session-id")).join(",")`),
    ).split(",");
    assert.equal(ids.length, 3);
    assert.equal(await me.evaluate(`document.querySelectorAll("[data-current]").length`), 1);
    const current = await me.getAttribute("[data-current]", "data-session-id");
    const victim = ids.find((id) => id !== current) ?? "";
    await me.click(`[data-session-id="${victim}"] form[action="/account/sessions/revoke"] button`);
    await me.waitForURL(`${demo.origin}/account/security`);
    assert.equal(await me.evaluate(`document.querySelectorAll("[data-session-id]").length`), 2);
    let alive = 0;
    for (const page of [second, third]) {
      await page.goto(`${demo.origin}/account`);
      if (page.url().endsWith("/account")) alive++;
    }
    assert.equal(alive, 1, "exactly the revoked session ended");
    await me.click('form[action="/account/sessions/revoke-others"] button');
    await me.waitForURL(`${demo.origin}/account/security`);
    assert.equal(await me.evaluate(`document.querySelectorAll("[data-session-id]").length`), 1);
    for (const page of [second, third]) {
      await page.goto(`${demo.origin}/account`);
      assert.match(page.url(), /\/signin$/);
    }
    for (const context of contexts) await context.close();
    assert.match(demo.logs(), /"msg":"auth event".*"event":"sessions_ended"/);
    assert.deepEqual(demo.errorLogs(), []);
  });
});
