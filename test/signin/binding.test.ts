import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { BINDING_COOKIE } from "../../lib/signin/binding.ts";
import { HashToken, LINK_TTL } from "../../lib/signin/index.ts";
import { CookieJar, count, extractCode, startSigninApp, type SigninApp } from "../_support/signin-app.ts";

/** Begins for `address` from `jar` (a browser of its own) and returns the emailed link. */
async function linkFrom(app: SigninApp, address: string, jar: CookieJar): Promise<string> {
  const sent = app.smtp?.messages.filter((m) => m.to.includes(address)).length ?? 0;
  const begun = await app.begin(address, { jar });
  assert.equal(begun.location, "/signin?sent=1");
  return app.linkFor(address, sent + 1);
}

function tokenHash(link: string): string {
  return HashToken(new URL(link).searchParams.get("token") ?? "");
}

describe("Signin Verify() with browser-bound links", () => {
  it("shows any other opener the address and code, spends nothing, and the asking browser still signs in", async (t) => {
    const app = await startSigninApp(t);
    const browser = new CookieJar();
    const link = await linkFrom(app, "ann@example.com", browser);
    const code = extractCode(app.smtp?.messages[0]?.parsed.text ?? "");

    const scanner = new CookieJar();
    for (let i = 0; i < 3; i++) {
      const page = await app.request("GET", link, { jar: scanner });
      assert.equal(page.status, 200);
      assert.deepEqual(page.setCookie, []);
      assert.equal(page.headers["cache-control"], "no-store");
      assert.equal(page.headers["referrer-policy"], "no-referrer");
      assert.match(page.headers["content-type"] ?? "", /^text\/html/);
      assert.ok(page.body.includes(`data-signin-address="ann@example.com"`), "names the address signing in");
      assert.ok(page.body.includes(`data-signin-code="${code}"`), "shows the emailed code");
      // Nothing a scanner could press: no form, no button, no script, no link back to the app.
      assert.doesNotMatch(page.body, /<form|<button|<script|<a |<input/i);
    }
    const probe = await app.request("HEAD", link, { jar: scanner });
    assert.equal(probe.status, 200);
    assert.deepEqual(probe.setCookie, []);
    assert.equal(count(app.db, "signin_links", "token_hash = ?", tokenHash(link)), 1, "the link is not spent");
    assert.equal(count(app.db, "sessions"), 0, "no session anywhere");
    assert.equal(scanner.cookies.size, 0);

    const landed = await app.request("GET", link, { jar: browser });
    assert.equal(landed.location, "/account");
    assert.equal((await app.request("GET", "/me", { jar: browser })).status, 200);
    assert.equal(count(app.db, "signin_links"), 0);
    // Spent: the next opener, bound or not, learns nothing more.
    assert.equal((await app.request("GET", link, { jar: scanner })).location, "/signin?err=expired");
  });

  it("changes nothing for a victim who opens an attacker's link", async (t) => {
    const app = await startSigninApp(t);
    const victim = new CookieJar();
    const own = await linkFrom(app, "ann@example.com", victim);
    assert.equal((await app.request("GET", own, { jar: victim })).location, "/account");
    const attacker = new CookieJar();
    const bait = await linkFrom(app, "eve@example.com", attacker);
    // The victim's browser holds a binding of its own, and a session: neither makes the bait work.
    const lured = await app.request("GET", bait, { jar: victim });
    assert.equal(lured.status, 200);
    assert.deepEqual(lured.setCookie, []);
    const me = await app.request("GET", "/me", { jar: victim });
    assert.equal(JSON.parse(me.body).from.Subject, "ann@example.com");
    assert.equal(count(app.db, "sessions", "subject = ?", "eve@example.com"), 0);
    assert.equal(count(app.db, "signin_links", "token_hash = ?", tokenHash(bait)), 1);
  });

  it("keeps one binding per browser, so every link asked for from it works there", async (t) => {
    const app = await startSigninApp(t);
    const browser = new CookieJar();
    const one = await linkFrom(app, "ann@example.com", browser);
    const value = browser.cookies.get(BINDING_COOKIE);
    assert.match(value ?? "", /^[A-Za-z0-9_-]{43}$/);
    const two = await linkFrom(app, "bob@example.com", browser);
    assert.equal(browser.cookies.get(BINDING_COOKIE), value, "the live binding is reused");
    // Only its hash is stored with each link.
    assert.equal(count(app.db, "signin_links", "binding_hash = ?", HashToken(value ?? "")), 2);
    assert.equal(count(app.db, "signin_links", "binding_hash = ? OR token_hash = ?", value ?? "", value ?? ""), 0);
    assert.equal((await app.request("GET", two, { jar: browser })).location, "/account");
    assert.equal((await app.request("GET", one, { jar: browser })).location, "/account");
    const other = new CookieJar();
    await linkFrom(app, "cat@example.com", other);
    assert.notEqual(other.cookies.get(BINDING_COOKIE), value, "another browser gets its own");
  });

  it("binds with __Host-framework_signin, Secure, on an https origin, living as long as a link", async (t) => {
    const app = await startSigninApp(t, { origin: "https://example.test" });
    const browser = new CookieJar();
    const begun = await app.begin("ann@example.com", { jar: browser });
    const line = begun.setCookie.find((c) => c.startsWith("__Host-framework_signin="));
    assert.match(
      line ?? "",
      new RegExp(`^__Host-framework_signin=[A-Za-z0-9_-]{43}; Max-Age=${LINK_TTL / 1000}; Path=/; HttpOnly; Secure; SameSite=Lax$`),
    );
    const link = await app.linkFor("ann@example.com");
    // The unprefixed name is not read on https: that browser is "another opener".
    const plain = new CookieJar();
    plain.cookies.set("framework_signin", browser.cookies.get("__Host-framework_signin") ?? "");
    assert.equal((await app.request("GET", link, { jar: plain })).status, 200);
    assert.equal((await app.request("GET", link, { jar: browser })).location, "/account");
  });

  it("refuses a malformed or foreign binding cookie like a missing one, without a 500", async (t) => {
    const app = await startSigninApp(t);
    const browser = new CookieJar();
    const link = await linkFrom(app, "ann@example.com", browser);
    for (const value of ["", "x", "A".repeat(43), "%00", "a".repeat(5000)]) {
      const jar = new CookieJar();
      jar.cookies.set(BINDING_COOKIE, value);
      const res = await app.request("GET", link, { jar });
      assert.equal(res.status, 200, JSON.stringify(value.slice(0, 8)));
      assert.deepEqual(res.setCookie, []);
    }
    assert.equal(count(app.db, "signin_links"), 1);
    assert.equal((await app.request("GET", link, { jar: browser })).location, "/account");
  });
});
