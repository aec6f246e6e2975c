import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { inspect } from "node:util";
import { LOG_MAILER_WARNING } from "../../lib/mail/log-mailer.ts";
import { count, extractLink, startSigninApp, CookieJar, type SigninApp } from "../_support/signin-app.ts";
import type { LogLine } from "../_support/http.ts";
import { freePort } from "../_support/server.ts";

const REF = /\b[a-z2-7]{6}\b/g;

function render(lines: readonly LogLine[]): string[] {
  return lines.map((l) => inspect(l, { depth: Infinity, breakLength: Infinity }));
}

async function assertSendFailure(app: SigninApp): Promise<void> {
  const res = await app.begin("ann@example.com");
  assert.equal(res.status, 503);
  assert.match(String(res.headers["content-type"]), /^text\/html/);
  assert.deepEqual(res.setCookie, []);
  assert.doesNotMatch(res.body, /signin\.err\.send|error\.reference/, "the page is translated, not catalog keys");
  const errors = app.log.lines().filter((l) => l["level"] === "error");
  assert.equal(errors.length, 1);
  const ref = errors[0]?.["ref"];
  assert.equal(typeof ref, "string");
  assert.match(String(ref), /^[a-z2-7]{6}$/);
  assert.ok(res.body.includes(String(ref)), "the page shows the logged reference");
  assert.ok([...res.body.matchAll(REF)].some((m) => m[0] === ref));
  assert.equal(count(app.db, "signin_links"), 0, "no usable link is left behind");
}

describe("Signin Begin() mail delivery", () => {
  for (const fail of [
    { at: "RCPT", code: 550 },
    { at: "DATA", code: 554 },
    { at: "MAIL", code: 451 },
  ] as const) {
    it(`shows a 503 page with a reference when the SMTP server answers ${fail.code} to ${fail.at}`, async (t) => {
      const app = await startSigninApp(t, { smtpOptions: { fail } });
      await assertSendFailure(app);
      assert.equal(app.smtp?.messages.length, 0);
    });
  }

  it("shows a 503 page with a reference when the SMTP port is unreachable", async (t) => {
    const app = await startSigninApp(t, { mail: { url: `smtp://127.0.0.1:${await freePort()}` } });
    await assertSendFailure(app);
  });

  it("logs neither the link token, the session cookie nor the InstanceKey", async (t) => {
    const app = await startSigninApp(t);
    await app.begin("ann@example.com");
    const link = await app.linkFor("ann@example.com");
    const token = new URL(link).searchParams.get("token") ?? "";
    const jar = new CookieJar();
    await app.request("GET", link, { jar });
    const cookie = jar.cookies.get("framework_session") ?? "";
    assert.equal((await app.request("GET", "/me", { jar })).status, 200);
    await app.request("GET", link); // a spent link
    app.clock.advance(60 * 60 * 1000);
    await app.request("GET", "/fresh", { jar, headers: { Accept: "text/html" } });
    await app.request("POST", "/signout", { jar });
    await app.request("GET", "/me", { jar });
    assert.equal(token.length, 43);
    assert.equal(cookie.length, 43);
    for (const line of render(app.log.lines())) {
      for (const secret of [token, cookie, "signin-app-instance-key-0123456789abcdef"]) {
        assert.ok(!line.includes(secret), `a log line holds a secret: ${line}`);
      }
    }
  });

  it("logs one warning carrying the link per send when Mailer is unset", async (t) => {
    const app = await startSigninApp(t, { mail: "log" });
    assert.equal((await app.begin("ann@example.com")).location, "/signin?sent=1");
    assert.equal((await app.begin("bob@example.com")).location, "/signin?sent=1");
    const warnings = app.log.lines().filter((l) => l["msg"] === LOG_MAILER_WARNING);
    assert.equal(warnings.length, 2);
    const links = warnings.map((l) => extractLink(String(l["text"])));
    assert.notEqual(links[0], links[1]);
    // The link is also a field of its own, whole (lib/mail README, newLogMailer): a JSON line's text has \n escapes.
    assert.deepEqual(
      warnings.map((l) => l["links"]),
      links.map((link) => [link]),
    );
    for (const link of links) {
      const holding = render(app.log.lines()).filter((l) => l.includes(link));
      assert.equal(holding.length, 1, "exactly one line holds each link");
      assert.ok(holding[0]?.includes("'warn'"));
    }
    assert.deepEqual(
      warnings.map((l) => l["to"]),
      [["ann@example.com"], ["bob@example.com"]],
    );
    const landed = await app.request("GET", links[1] ?? "");
    assert.equal(landed.location, "/account");
    assert.equal(count(app.db, "sessions", "subject = 'bob@example.com'"), 1);
  });
});
