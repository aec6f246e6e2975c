import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { HashToken } from "../../lib/signin/index.ts";
import { METHOD_MAGICLINK } from "../../lib/signin/first-factors.ts";
import { setCookieLine } from "../_support/http-client.ts";
import { CookieJar, count, startSigninApp } from "../_support/signin-app.ts";

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** The session cookie line among Set-Cookie values. */
function sessionCookie(setCookie: readonly string[], name: string): string {
  const line = setCookieLine(setCookie, name);
  assert.ok(line, `a Set-Cookie for ${name} in ${JSON.stringify(setCookie)}`);
  return line;
}

describe("Signin Begin() → Verify() → RequireSession() → Signout()", () => {
  it("signs in by emailed link over real HTTP and SMTP, and signs out", async (t) => {
    const app = await startSigninApp(t);
    const begun = await app.begin(" Ann@Example.COM ");
    assert.equal(begun.status, 303);
    assert.equal(begun.location, "/signin?sent=1");
    // The link is bound to this browser: a random value in a short-lived cookie, only its hash stored.
    assert.equal(begun.setCookie.length, 1);
    assert.match(begun.setCookie[0] ?? "", /^framework_signin=[A-Za-z0-9_-]{43}; Max-Age=600; Path=\/; HttpOnly; SameSite=Lax$/);

    assert.equal(app.smtp?.messages.length, 1);
    const msg = await app.smtp.waitForMessage();
    assert.deepEqual(msg.to, ["ann@example.com"]);
    assert.equal(msg.from, "no-reply@127.0.0.1");
    const link = new URL(await app.linkFor("ann@example.com"));
    assert.equal(link.origin, app.origin);
    assert.equal(link.pathname, "/auth/verify");
    const token = link.searchParams.get("token") ?? "";
    assert.match(token, TOKEN);
    assert.ok(msg.parsed.html?.includes(link.href), "the HTML part carries the link too");
    // Only the hash of the token is stored.
    assert.equal(count(app.db, "signin_links", "token_hash = ? AND address = ?", HashToken(token), "ann@example.com"), 1);
    assert.equal(count(app.db, "signin_links", "token_hash = ?", token), 0);

    const jar = new CookieJar();
    const landed = await app.request("GET", link.href, { jar });
    assert.equal(landed.status, 303);
    assert.equal(landed.location, "/account");
    assert.equal(landed.headers["cache-control"], "no-store");
    const cookie = sessionCookie(landed.setCookie, "framework_session");
    const value = jar.cookies.get("framework_session") ?? "";
    assert.match(value, TOKEN);
    assert.equal(count(app.db, "signin_links"), 0, "the link is spent");
    assert.equal(count(app.db, "sessions", "token_hash = ? AND subject = ?", HashToken(value), "ann@example.com"), 1);
    assert.equal(count(app.db, "signin_accounts", "address = ?", "ann@example.com"), 1);
    assert.ok(cookie.includes("; HttpOnly"));

    const me = await app.request("GET", "/me", { jar });
    assert.equal(me.status, 200);
    const identity = { Subject: "ann@example.com", Method: METHOD_MAGICLINK, AuthTime: app.clock.now().toISOString() };
    assert.deepEqual(JSON.parse(me.body), { from: identity, session: identity, userID: null });
    assert.equal(METHOD_MAGICLINK, "magiclink");

    const stolen = new CookieJar();
    stolen.cookies.set("framework_session", value);
    const out = await app.request("POST", "/signout", { jar });
    assert.equal(out.status, 303);
    assert.equal(out.location, "/signin");
    assert.equal(sessionCookie(out.setCookie, "framework_session"), "framework_session=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax");
    assert.equal(jar.cookies.size, 0);
    assert.equal(count(app.db, "sessions"), 0, "the session row is deleted");

    // The old cookie value opens nothing any more.
    const html = await app.request("GET", "/me", { jar: stolen, headers: { Accept: "text/html,application/xhtml+xml" } });
    assert.equal(html.status, 303);
    assert.equal(html.location, "/signin");
    const api = await app.request("GET", "/me", { jar: stolen, headers: { Accept: "application/json" } });
    assert.equal(api.status, 401);
    assert.equal(api.location, undefined);
  });

  it("refuses a request without a session cookie: 303 for HTML, 401 otherwise", async (t) => {
    const app = await startSigninApp(t);
    const cases = [
      { accept: "text/html", status: 303 },
      { accept: "*/*", status: 401 },
      { accept: "application/json", status: 401 },
    ];
    for (const c of cases) {
      const res = await app.request("GET", "/me", { headers: { Accept: c.accept } });
      assert.equal(res.status, c.status, c.accept);
    }
    const forged = new CookieJar();
    forged.cookies.set("framework_session", "A".repeat(43));
    assert.equal((await app.request("GET", "/me", { jar: forged })).status, 401);
  });

  it("sets framework_session without Secure on an http origin", async (t) => {
    const app = await startSigninApp(t);
    assert.equal(app.auth.SessionCookie(), "framework_session");
    await app.begin("ann@example.com");
    const landed = await app.request("GET", await app.linkFor("ann@example.com"));
    const cookie = sessionCookie(landed.setCookie, "framework_session");
    assert.match(cookie, /^framework_session=[A-Za-z0-9_-]{43}; Max-Age=2592000; Path=\/; HttpOnly; SameSite=Lax$/);
    assert.ok(!cookie.includes("Secure"));
  });

  it("sets __Host-framework_session with Secure on an https origin", async (t) => {
    const app = await startSigninApp(t, { origin: "https://example.test" });
    assert.equal(app.auth.SessionCookie(), "__Host-framework_session");
    const begun = await app.begin("ann@example.com");
    assert.equal(begun.location, "/signin?sent=1");
    const link = await app.linkFor("ann@example.com");
    assert.ok(link.startsWith("https://example.test/auth/verify?token="), link);
    const jar = new CookieJar();
    const landed = await app.request("GET", link, { jar });
    const cookie = sessionCookie(landed.setCookie, "__Host-framework_session");
    assert.match(cookie, /^__Host-framework_session=[A-Za-z0-9_-]{43}; Max-Age=2592000; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
    assert.equal((await app.request("GET", "/me", { jar })).status, 200);
    // The unprefixed name is not read on an https origin.
    const plain = new CookieJar();
    plain.cookies.set("framework_session", jar.cookies.get("__Host-framework_session") ?? "");
    assert.equal((await app.request("GET", "/me", { jar: plain })).status, 401);
    const out = await app.request("POST", "/signout", { jar });
    assert.equal(
      sessionCookie(out.setCookie, "__Host-framework_session"),
      "__Host-framework_session=; Max-Age=0; Path=/; HttpOnly; Secure; SameSite=Lax",
    );
  });

  it("refuses a cross-origin sign-in POST through CrossOriginProtection", async (t) => {
    const app = await startSigninApp(t);
    const res = await app.begin("ann@example.com", { headers: { Origin: "http://evil.test" } });
    assert.equal(res.status, 403);
    assert.equal(app.smtp?.messages.length, 0);
    assert.equal(count(app.db, "signin_links"), 0);
  });

  it("applies SessionTTL and IdleTimeout from the config", async (t) => {
    const HOUR = 60 * 60 * 1000;
    const app = await startSigninApp(t, { config: { SessionTTL: 3 * HOUR, IdleTimeout: HOUR } });
    await app.begin("ann@example.com");
    const jar = new CookieJar();
    const landed = await app.request("GET", await app.linkFor("ann@example.com"), { jar });
    assert.match(sessionCookie(landed.setCookie, "framework_session"), /; Max-Age=10800;/);
    for (let i = 0; i < 5; i++) {
      app.clock.advance(HOUR / 2);
      assert.equal((await app.request("GET", "/me", { jar })).status, 200, `after ${(i + 1) / 2} h of activity`);
    }
    app.clock.advance(HOUR / 2);
    assert.equal((await app.request("GET", "/me", { jar })).status, 401, "the 3-hour cap ends it");

    const idle = await app.signIn("bob@example.com");
    app.clock.advance(HOUR);
    assert.equal((await app.request("GET", "/me", { jar: idle })).status, 401, "an hour idle ends it");
  });
});
