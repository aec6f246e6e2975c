import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { HashToken, LINK_TTL, NewToken } from "../../lib/signin/index.ts";
import { CookieJar, count, startSigninApp, type SigninApp, type TestResponse } from "../_support/signin-app.ts";

/** What a client can tell apart about a refusal: everything but the Date. */
function observable(res: TestResponse): Pick<TestResponse, "status" | "headers" | "body"> {
  const headers = { ...res.headers };
  delete headers.date;
  return { status: res.status, headers, body: res.body };
}

async function linkTo(app: SigninApp, address: string): Promise<string> {
  const sent = app.smtp?.messages.filter((m) => m.to.includes(address)).length ?? 0;
  const begun = await app.begin(address);
  assert.equal(begun.location, "/signin?sent=1");
  return app.linkFor(address, sent + 1);
}

function tokenOf(link: string): string {
  return new URL(link).searchParams.get("token") ?? "";
}

describe("Signin Verify()", () => {
  it("refuses the same link the second time with ?err=expired", async (t) => {
    const app = await startSigninApp(t);
    const link = await linkTo(app, "ann@example.com");
    assert.equal((await app.request("GET", link)).location, "/account");
    const again = await app.request("GET", link, { jar: new CookieJar() });
    assert.equal(again.status, 303);
    assert.equal(again.location, "/signin?err=expired");
    assert.deepEqual(again.setCookie, []);
    assert.equal(count(app.db, "sessions"), 1);
  });

  it("answers HEAD without spending the link (mail scanners probe with HEAD)", async (t) => {
    const app = await startSigninApp(t);
    const link = await linkTo(app, "ann@example.com");
    const probe = await app.request("HEAD", link, { jar: new CookieJar() });
    assert.equal(probe.status, 200);
    assert.deepEqual(probe.setCookie, []);
    assert.equal(count(app.db, "signin_links", "token_hash = ?", HashToken(tokenOf(link))), 1);
    assert.equal((await app.request("GET", link)).location, "/account");
  });

  it("mints exactly one session for two concurrent requests with one token", async (t) => {
    const app = await startSigninApp(t);
    const link = await linkTo(app, "ann@example.com");
    const results = await Promise.all([app.request("GET", link), app.request("GET", link), app.request("GET", link)]);
    const locations = results.map((r) => r.location).sort();
    assert.deepEqual(locations, ["/account", "/signin?err=expired", "/signin?err=expired"]);
    assert.ok(results.every((r) => r.status === 303));
    assert.equal(results.filter((r) => r.setCookie.length > 0).length, 1);
    assert.equal(count(app.db, "sessions"), 1);
  });

  it("gives expired, unknown, wrong-purpose and missing tokens one identical answer and spends them", async (t) => {
    const app = await startSigninApp(t);
    const expired = tokenOf(await linkTo(app, "ann@example.com"));
    const wrong = NewToken();
    app.db
      .prepare("INSERT INTO signin_links (token_hash, purpose, address, expires_at, binding_hash) VALUES (?, 'other', ?, ?, ?)")
      .run(
        HashToken(wrong),
        "ann@example.com",
        app.clock.now().getTime() + LINK_TTL * 10,
        HashToken(app.browser.cookies.get(app.bindingCookie) ?? ""),
      );
    app.clock.advance(LINK_TTL);
    const unknown = NewToken();
    assert.equal(count(app.db, "signin_links"), 2);
    const answers = [];
    for (const target of [
      `/auth/verify?token=${expired}`,
      `/auth/verify?token=${unknown}`,
      `/auth/verify?token=${wrong}`,
      "/auth/verify",
      "/auth/verify?token=",
    ]) {
      answers.push(observable(await app.request("GET", target)));
    }
    const first = answers[0];
    assert.ok(first !== undefined);
    assert.equal(first.status, 303);
    assert.equal(first.headers.location, "/signin?err=expired");
    assert.equal(first.headers["set-cookie"], undefined);
    assert.equal(first.body, "");
    for (const a of answers) assert.deepEqual(a, first);
    for (const token of [expired, wrong]) assert.equal(count(app.db, "signin_links", "token_hash = ?", HashToken(token)), 0);
    assert.equal(count(app.db, "signin_links"), 0);
    assert.equal(count(app.db, "sessions"), 0);
    // A spent wrong-purpose token stays refused.
    assert.equal((await app.request("GET", `/auth/verify?token=${wrong}`)).location, "/signin?err=expired");
  });

  it("accepts a link until LINK_TTL has passed (10 minutes, OWASP ASVS 5.0 §6.5.5)", async (t) => {
    assert.equal(LINK_TTL, 10 * 60 * 1000);
    const app = await startSigninApp(t);
    const link = await linkTo(app, "ann@example.com");
    app.clock.advance(LINK_TTL - 1);
    assert.equal((await app.request("GET", link)).location, "/account");
    const late = await linkTo(app, "ann@example.com");
    app.clock.advance(LINK_TTL);
    assert.equal((await app.request("GET", late)).location, "/signin?err=expired");
  });

  it("honours a configured LinkTTL and states it in the email", async (t) => {
    const app = await startSigninApp(t, { config: { LinkTTL: 2 * 60 * 1000 } });
    const link = await linkTo(app, "ann@example.com");
    const text = app.smtp?.messages[0]?.parsed.text ?? "";
    assert.match(text, /\b2\b/);
    assert.doesNotMatch(text, /\b15\b/);
    app.clock.advance(2 * 60 * 1000);
    assert.equal((await app.request("GET", link)).location, "/signin?err=expired");
  });

  it("keeps earlier links of the same address usable (each is its own token)", async (t) => {
    const app = await startSigninApp(t);
    const one = await linkTo(app, "ann@example.com");
    const two = await linkTo(app, "ann@example.com");
    assert.notEqual(one, two);
    assert.equal((await app.request("GET", two)).location, "/account");
    assert.equal((await app.request("GET", one)).location, "/account");
    assert.equal(count(app.db, "sessions"), 2);
  });
});
