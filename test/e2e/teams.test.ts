/*
 * Teams in the demo (issue 38, "How it is judged"), in real headless
 * Chromium over a real SMTP server: Ada creates a team at /teams and
 * invites Grace at /teams/{team}; Grace opens the emailed link signed out,
 * signs in as the invited address, lands back on the page that names the
 * team and the inviter, and accepts; both see both members with their
 * roles. A third person opening the same link or the team's page gets 404;
 * after Ada removes Grace, Grace gets 404 too; the last owner cannot leave.
 *
 * With SCREENSHOT_DIR set, /teams and /teams/{team} are written there in
 * light and dark (`teams-<scheme>-<page>.png`) for a person to look at.
 */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { hasChromium, launchBrowser, watchedPage, type Browser, type Page } from "../_support/browser.ts";
import { signInByLink, startDemo, isSigninMail, type Demo } from "../_support/demo.ts";
import { extractLink } from "../_support/signin-app.ts";

const ADA = "ada-team@example.com";
const GRACE = "grace-team@example.com";
const MALLORY = "mallory-team@example.com";
const SHOTS = process.env["SCREENSHOT_DIR"];

/** The members a team's page lists: address and role, in page order. */
async function members(page: Page): Promise<unknown> {
  return page.evaluate(`[...document.querySelectorAll("[data-member]")].map((li) => [li.dataset.member, li.dataset.memberRole])`);
}

describe("demo: a team, an invitation by email, removal (browser)", { skip: hasChromium ? false : "no system Chromium" }, () => {
  let demo: Demo;
  let browser: Browser;
  before(async () => {
    if (SHOTS !== undefined) mkdirSync(SHOTS, { recursive: true });
    demo = await startDemo();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await demo?.close();
  });

  const shoot = async (page: Page, name: string): Promise<void> => {
    if (SHOTS === undefined) return;
    for (const colorScheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme });
      await page.screenshot({ path: join(SHOTS, `teams-${colorScheme}-${name}.png`), fullPage: true });
    }
    await page.emulateMedia({ colorScheme: "light" });
  };

  it("create, invite, accept through the emailed link; strangers, the removed member and a forged link get 404; the last owner stays", async () => {
    const ada = await watchedPage(await browser.newContext());
    await signInByLink(ada.page, demo, ADA);
    await ada.page.waitForURL(`${demo.origin}/account`);
    await ada.page.goto(`${demo.origin}/teams`);
    assert.equal(await ada.page.getAttribute('header nav a[aria-current="page"]', "href"), "/teams");
    await ada.page.fill('form[action="/teams"] input[name="name"]', "Workshop");
    await ada.page.click('form[action="/teams"] button[type="submit"]');
    await ada.page.waitForSelector('body[data-role="owner"]');
    const team = (await ada.page.getAttribute("body", "data-team")) ?? "";
    assert.match(team, /^[A-Za-z0-9_-]{12}$/);
    assert.equal(new URL(ada.page.url()).pathname, `/teams/${team}`);

    // The invite form: fields `email` and `role`.
    const invited = demo.smtp.messages.length;
    await ada.page.fill(`form[action="/teams/${team}/invitations"] input[name="email"]`, GRACE);
    await ada.page.selectOption(`form[action="/teams/${team}/invitations"] select[name="role"]`, "member");
    await ada.page.click(`form[action="/teams/${team}/invitations"] button[type="submit"]`);
    await ada.page.waitForSelector('[data-outcome="invited"]');
    assert.match((await ada.page.textContent("[data-invitation]")) ?? "", new RegExp(GRACE.replace(/\./g, "\\.")));
    const mail = await demo.smtp.waitForMessage((m) => demo.smtp.messages.indexOf(m) >= invited && m.to.includes(GRACE));
    const link = /http:\/\/\S+\/teams\/join\?token=[A-Za-z0-9_-]+/.exec(mail.parsed.text ?? "")?.[0] ?? "";
    assert.notEqual(link, "", "the invitation mail holds the link");
    await ada.page.goto(`${demo.origin}/teams`);
    await shoot(ada.page, "list");

    // Grace opens the link signed out: sign in as the invited address, and back to the page naming the team and the inviter.
    const grace = await watchedPage(await browser.newContext());
    await grace.page.goto(link);
    await grace.page.waitForURL(/\/signin\?next=/);
    const asked = demo.smtp.messages.length;
    await grace.page.fill("#email", GRACE);
    await grace.page.click('form[action="/signin"] button[type="submit"]');
    await grace.page.waitForURL(/\/signin\?sent=1$/);
    const signin = await demo.smtp.waitForMessage((m) => demo.smtp.messages.indexOf(m) >= asked && m.to.includes(GRACE) && isSigninMail(m));
    await grace.page.goto(extractLink(signin.parsed.text ?? ""));
    await grace.page.waitForSelector(`form[data-team-join="${team}"]`);
    assert.match((await grace.page.textContent("h1")) ?? "", /Workshop/);
    const invitation = (await grace.page.textContent(`form[data-team-join="${team}"]`)) ?? "";
    assert.match(invitation, new RegExp(ADA.replace(/\./g, "\\.")), "the page names the inviter");
    assert.match(invitation, /Workshop/, "and the team");
    assert.match(invitation, /Member/, "and the role");
    await grace.page.click(`form[data-team-join="${team}"] button[type="submit"]`);
    await grace.page.waitForSelector('[data-outcome="joined"]');

    // Both see the team's page with both members and their roles.
    const both = [
      [ADA, "owner"],
      [GRACE, "member"],
    ].sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    assert.equal(await grace.page.getAttribute("body", "data-role"), "member");
    assert.deepEqual(await members(grace.page), both);
    await ada.page.goto(`${demo.origin}/teams/${team}`);
    assert.deepEqual(await members(ada.page), both);
    await shoot(ada.page, "team");
    // A member's row keeps its role select, Change and Remove on one line; one's own row has no Remove (Leave is that).
    assert.equal(
      await ada.page.evaluate(
        `new Set([...document.querySelectorAll('li[data-member="${GRACE}"] button, li[data-member="${GRACE}"] select')].map((e) => Math.round(e.getBoundingClientRect().top + e.getBoundingClientRect().height / 2))).size`,
      ),
      1,
    );
    assert.equal(await ada.page.evaluate(`document.querySelectorAll('li[data-member="${ADA}"] form[action$="/remove"]').length`), 0);
    // Deleting the team looks like every other destructive button: outlined, not the accent's fill.
    assert.equal(
      await ada.page.evaluate(`getComputedStyle(document.querySelector('a.button.danger')).backgroundColor`),
      "rgba(0, 0, 0, 0)",
    );

    // A third person: the spent link and the team's page are 404; so is a forged link.
    const mallory = await watchedPage(await browser.newContext());
    await signInByLink(mallory.page, demo, MALLORY);
    await mallory.page.waitForURL(`${demo.origin}/account`);
    assert.equal((await mallory.page.goto(link))?.status(), 404);
    assert.equal((await mallory.page.goto(`${demo.origin}/teams/${team}`))?.status(), 404);
    assert.equal((await mallory.page.goto(`${demo.origin}/teams/join?token=${"A".repeat(43)}`))?.status(), 404);
    await mallory.page.goto(`${demo.origin}/teams`);
    assert.doesNotMatch(await mallory.page.content(), /Workshop/);

    // Ada removes Grace: Grace's next request is 404, and /teams no longer lists the team for her.
    await ada.page.click(`li[data-member="${GRACE}"] form[action="/teams/${team}/members/remove"] button[type="submit"]`);
    await ada.page.waitForSelector('[data-outcome="removed"]');
    assert.deepEqual(await members(ada.page), [[ADA, "owner"]]);
    assert.equal((await grace.page.goto(`${demo.origin}/teams/${team}`))?.status(), 404);
    await grace.page.goto(`${demo.origin}/teams`);
    assert.doesNotMatch(await grace.page.content(), /Workshop/);

    // The last owner cannot leave: 409, the reason on the page, and Ada still owns the team.
    await ada.page.goto(`${demo.origin}/teams/${team}`);
    const [left] = await Promise.all([
      new Promise<number>((resolve) =>
        ada.page.on("response", (r) => {
          if (r.url() === `${demo.origin}/teams/${team}/leave`) resolve(r.status());
        }),
      ),
      ada.page.click(`form[action="/teams/${team}/leave"] button[type="submit"]`),
    ]);
    assert.equal(left, 409);
    await ada.page.waitForSelector('[data-refusal="last_owner"]');
    assert.match((await ada.page.textContent('[data-refusal="last_owner"]')) ?? "", /at least one owner/);
    await ada.page.goto(`${demo.origin}/teams/${team}`);
    assert.equal(await ada.page.getAttribute("body", "data-role"), "owner");

    // The browser logs each refused load (the 404s and the 409 above); nothing else may go wrong.
    const refused = /^Failed to load resource: the server responded with a status of (404|409) /;
    for (const who of [ada, grace, mallory])
      assert.deepEqual(
        who.errors.filter((e) => !refused.test(e)),
        [],
      );
  });
});
