/*
 * When Begin does not upgrade to the inbox provider, over HTTP through a
 * whole app: an unclaimed address, `force=1`, and a WebFinger that never
 * answers all end in the emailed link, delivered to a real SMTP server,
 * which signs in with method "magiclink" through the same handlers.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { assertLogsClean, beginKeymail, noteSecret, startKeymailApp } from "../_support/keymail-app.ts";
import { cookiePair, setCookieLine } from "../_support/http-client.ts";
import type { KeymailApp } from "../_support/keymail-app.ts";
import { startSigninApp } from "../_support/signin-app.ts";
import { freePort } from "../_support/server.ts";

const ALICE = "alice@example.com";
const DAVE = "dave@example.com";
const accounts = { [ALICE]: { email_verified: true } };

/** POSTs the Begin form and expects the emailed-link outcome with no pending cookie. */
async function expectSent(app: KeymailApp, form: Record<string, string>): Promise<void> {
  const res = await app.post("/signin", form);
  assert.equal(res.status, 303);
  assert.equal(res.headers.get("location"), "/signin?sent=1");
  assert.equal(setCookieLine(res.headers.getSetCookie(), "framework_oidc"), undefined, "no pending cookie");
}

/** Waits for the email to `address` at the SMTP server and returns the sign-in link in it. */
async function emailedLink(app: KeymailApp, address: string): Promise<URL> {
  const mail = await app.smtp.waitForMessage((m) => m.to.includes(address));
  const link = new RegExp(`${app.origin.replaceAll(".", "\\.")}/auth/verify\\?token=[A-Za-z0-9_-]+`).exec(mail.parsed.text ?? "")?.[0];
  assert.ok(link !== undefined, "the email holds the sign-in link");
  const url = new URL(link);
  noteSecret(app, url.searchParams.get("token"));
  return url;
}

describe("Signin.Begin() sending the emailed link instead of the provider", () => {
  let app: KeymailApp;
  before(async () => {
    app = await startKeymailApp({ accounts, claimed: [ALICE] });
  });
  after(() => app.close());

  it("emails an unclaimed address a link that signs in with method magiclink", async () => {
    const asked = app.idp.webfingerRequests();
    await expectSent(app, { email: DAVE });
    assert.equal(app.idp.webfingerRequests(), asked + 1, "WebFinger was asked and said no");
    const link = await emailedLink(app, DAVE);
    const res = await app.get(`${link.pathname}${link.search}`);
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/account");
    const sessionLine = setCookieLine(res.headers.getSetCookie(), app.auth.SessionCookie());
    assert.ok(sessionLine !== undefined);
    noteSecret(app, cookiePair(sessionLine).split("=")[1]);
    const me = await app.get("/me", cookiePair(sessionLine));
    assert.deepEqual(await me.json(), { subject: DAVE, method: "magiclink" });
    assertLogsClean(app);
  });

  it("skips the upgrade on force=1 for a claimed address, without asking WebFinger", async () => {
    // Without force the same address goes to the provider, after one WebFinger request.
    const before = app.idp.webfingerRequests();
    await beginKeymail(app, ALICE);
    assert.equal(app.idp.webfingerRequests(), before + 1);
    assert.equal(app.smtp.messages.filter((m) => m.to.includes(ALICE)).length, 0);

    await expectSent(app, { email: ALICE, force: "1" });
    assert.equal(app.idp.webfingerRequests(), before + 1, "WebFinger was not asked");
    await emailedLink(app, ALICE);
    assertLogsClean(app);
  });
});

describe("Signin.Begin() when WebFinger does not answer", () => {
  const LOOKUP_TIMEOUT = 50;
  let app: KeymailApp;
  before(async () => {
    app = await startKeymailApp({ accounts, claimed: [ALICE], stallWebFinger: true, lookupTimeout: LOOKUP_TIMEOUT });
  });
  after(() => app.close());

  it("emails a claimed address the link once LookupTimeout passes", async (t) => {
    // The lookup deadline is a plain setTimeout: hold it until the stalled request has surely arrived.
    t.mock.timers.enable({ apis: ["setTimeout"] });
    let settled = false;
    const begun = app.post("/signin", { email: ALICE }).finally(() => (settled = true));
    while (app.idp.webfingerRequests() === 0 && !settled) await new Promise((resolve) => setImmediate(resolve));
    t.mock.timers.tick(LOOKUP_TIMEOUT);
    // Real timers again before the fallback goes on to send the email.
    t.mock.timers.reset();
    const res = await begun;
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/signin?sent=1");
    assert.equal(setCookieLine(res.headers.getSetCookie(), "framework_oidc"), undefined, "no pending cookie");
    assert.equal(app.idp.webfingerRequests(), 1);
    await emailedLink(app, ALICE);
    assertLogsClean(app);
  });
});

describe("Signin Begin() with an unreachable provider", () => {
  it("sends the emailed link when the claim lookup says yes but the provider's metadata cannot be fetched", async (t) => {
    const unreachable = await freePort();
    const app = await startSigninApp(t, {
      config: { Provider: { Issuer: `http://127.0.0.1:${unreachable}`, Lookup: () => Promise.resolve(true) } },
    });
    const begun = await app.begin("ann@example.com");
    assert.equal(begun.location, "/signin?sent=1");
    const link = await app.linkFor("ann@example.com", 1);
    assert.equal((await app.request("GET", link)).location, "/account");
    assert.ok(app.log.lines().some((l) => l["msg"] === "signin: inbox provider unavailable; sending an emailed link"));
  });
});
