/*
 * Emailed sign-in against the demo's real entry point over plain HTTP
 * (its own process, database and real SMTP server): any client without the
 * binding (a plain GET, HEAD) spends nothing; five wrong codes void the
 * pending sign-in; plus-tags share an address's budget; the sessions page
 * and its routes; and last (it spends the hour's stranger budget) a flood
 * from 25 loopback clients while a returning person is still served.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { isSigninMail, startDemo, type Demo } from "../_support/demo.ts";
import type { CapturedMessage } from "../_support/smtp-server.ts";
import { CookieJar, sendRequest, type RequestOptions, type TestResponse } from "../_support/http-client.ts";
import { extractCode, extractLink } from "../_support/signin-app.ts";
import { makeTestCert } from "../_support/tls-cert.ts";

describe("emailed sign-in in the demo (HTTP)", () => {
  let demo: Demo;
  let base: string;
  // Requests go to 127.0.0.1 (so a client can bind 127.0.<n>.1); Origin names the demo's origin.
  const send = (method: string, target: string, options: RequestOptions = {}): Promise<TestResponse> =>
    sendRequest(base, method, target, options, demo.origin);

  /** Begins for `address` from `jar`; returns the emailed link and code. */
  async function ask(address: string, jar: CookieJar, localAddress?: string): Promise<{ link: string; code: string }> {
    const to = address.toLowerCase();
    const mails = (): CapturedMessage[] => demo.smtp.messages.filter((m) => m.to.includes(to) && isSigninMail(m));
    const before = mails().length;
    const begun = await send("POST", "/signin", { jar, form: { email: address }, ...(localAddress !== undefined && { localAddress }) });
    assert.equal(begun.location, "/signin?sent=1");
    const message = await demo.smtp.waitForMessage((m) => mails().indexOf(m) === before);
    const text = message.parsed.text ?? "";
    return { link: extractLink(text), code: extractCode(text) };
  }

  before(async () => {
    demo = await startDemo();
    base = `http://127.0.0.1:${new URL(demo.origin).port}`;
  });
  after(async () => {
    await demo?.close();
  });

  it("mails with EHLO naming the origin's host, not the machine's name (RFC 5321 §4.1.1.1)", async () => {
    await ask("ehlo@example.com", new CookieJar());
    const mail = demo.smtp.messages.find((m) => m.to.includes("ehlo@example.com"));
    assert.equal(mail?.helo, "localhost");
  });

  it("shows the code page to a plain GET and spends nothing on GET or HEAD; the asking browser signs in", async () => {
    const browser = new CookieJar();
    const { link, code } = await ask("gus@example.com", browser);
    const plain = await send("GET", link);
    assert.equal(plain.status, 200);
    assert.ok(plain.body.includes(`data-signin-code="${code}"`));
    assert.equal(plain.headers["cache-control"], "no-store");
    assert.equal(plain.headers["referrer-policy"], "no-referrer");
    assert.deepEqual(plain.setCookie, []);
    assert.equal((await send("HEAD", link)).status, 200);
    assert.equal((await send("GET", link, { jar: browser })).location, "/account");
    const signinPage = await send("GET", "/signin?sent=1", { jar: browser });
    assert.match(signinPage.body, /<form[^>]*action="\/auth\/code"[\s\S]*?<input[^>]*name="code"/);
    // HTML §4.10.5.3.6: browsers compile `pattern` with the `v` flag; an invalid one is ignored (and logged).
    const pattern = /<input[^>]*name="code"[^>]*pattern="([^"]*)"/.exec(signinPage.body)?.[1] ?? "";
    assert.doesNotThrow(() => new RegExp(`^(?:${pattern})$`, "v"), pattern);
    assert.ok(new RegExp(`^(?:${pattern})$`, "v").test("123 456") && new RegExp(`^(?:${pattern})$`, "v").test("123-456"));
  });

  it("voids the pending sign-in after 5 wrong codes", async () => {
    const browser = new CookieJar();
    const { link, code } = await ask("hal@example.com", browser);
    const wrong = code === "000000" ? "000001" : "000000";
    for (let i = 1; i <= 4; i++)
      assert.equal((await send("POST", "/auth/code", { jar: browser, form: { code: wrong } })).location, "/signin?err=code");
    assert.equal((await send("POST", "/auth/code", { jar: browser, form: { code: wrong } })).location, "/signin?err=expired");
    assert.equal((await send("POST", "/auth/code", { jar: browser, form: { code } })).location, "/signin?err=code");
    assert.equal((await send("GET", link, { jar: browser })).location, "/signin?err=expired");
    const page = await send("GET", "/signin?err=code");
    assert.match(page.body, /data-outcome="code"/);
  });

  it("counts plus-tags as one address", async () => {
    for (let i = 1; i <= 5; i++) {
      const res = await send("POST", "/signin", { form: { email: `ivy+${i}@example.com` }, localAddress: `127.0.${100 + i}.1` });
      assert.equal(res.location, "/signin?sent=1");
    }
    const sixth = await send("POST", "/signin", { form: { email: "IVY+six@example.com" }, localAddress: "127.0.110.1" });
    assert.equal(sixth.location, "/signin?err=rate");
  });

  it("lists sessions on /account/security and ends one, then all others, by its routes", async () => {
    const jars = [new CookieJar(), new CookieJar(), new CookieJar()];
    for (const jar of jars) {
      const { link } = await ask("kim@example.com", jar, "127.0.40.1");
      assert.equal((await send("GET", link, { jar })).location, "/account");
    }
    const [me, second, third] = jars;
    assert.ok(me !== undefined && second !== undefined && third !== undefined);
    const page = await send("GET", "/account/security", { jar: me });
    assert.equal(page.status, 200);
    const ids = [...page.body.matchAll(/data-session-id="([^"]+)"/g)].map((m) => m[1] ?? "");
    assert.equal(ids.length, 3);
    const current = /data-session-id="([^"]+)" data-current/.exec(page.body)?.[1];
    assert.ok(current !== undefined && ids.includes(current));
    const other = ids.find((id) => id !== current) ?? "";
    assert.equal((await send("POST", "/account/sessions/revoke", { jar: me, form: { id: other } })).location, "/account/security");
    const alive = [];
    for (const jar of [second, third]) alive.push((await send("GET", "/account", { jar })).status);
    assert.deepEqual(alive.sort(), [200, 401]);
    assert.equal((await send("POST", "/account/sessions/revoke-others", { jar: me, form: {} })).location, "/account/security");
    for (const jar of [second, third]) assert.equal((await send("GET", "/account", { jar })).status, 401);
    const after = await send("GET", "/account/security", { jar: me });
    assert.deepEqual(
      [...after.body.matchAll(/data-session-id="([^"]+)"/g)].map((m) => m[1]),
      [current],
    );
  });
  it("serves a returning person while 25 clients flood the stranger budget; a JSON stranger gets 429 + Retry-After", async () => {
    const returning = new CookieJar();
    const first = await ask("joy@example.com", returning);
    assert.equal((await send("GET", first.link, { jar: returning })).location, "/account");
    // Earlier tests spent some of the hour's stranger budget; fill what is left from 25 clients.
    let sent = 0;
    let refused = 0;
    await Promise.all(
      Array.from({ length: 25 }, async (_, i) => {
        for (let j = 0; j < 20; j++) {
          const res = await send("POST", "/signin", { form: { email: `flood-${i}-${j}@example.net` }, localAddress: `127.0.${i + 1}.1` });
          if (res.location === "/signin?sent=1") sent++;
          else if (res.location === "/signin?err=rate") refused++;
          else assert.fail(`unexpected ${res.status} ${res.location ?? ""}`);
        }
      }),
    );
    assert.equal(sent + refused, 500);
    assert.ok(refused > 0, "the budget ran out during the flood");
    const stranger = await send("POST", "/signin", {
      form: { email: "new@example.org" },
      localAddress: "127.0.30.1",
      headers: { Accept: "application/json" },
    });
    assert.equal(stranger.status, 429);
    const retry = Number(stranger.headers["retry-after"]);
    assert.ok(Number.isInteger(retry) && retry > 0 && retry <= 3600, String(retry));
    const again = await ask("Joy@Example.com", new CookieJar(), "127.0.31.1");
    assert.match(again.code, /^[0-9]{6}$/);
    assert.deepEqual(demo.errorLogs(), []);
  });
});

describe("the demo's mail through a server with its own certificate (STARTTLS)", () => {
  async function begin(demo: Demo): Promise<TestResponse> {
    const jar = new CookieJar();
    const base = `http://127.0.0.1:${new URL(demo.origin).port}`;
    return sendRequest(base, "POST", "/signin", { jar, form: { email: "tls@example.com" } }, demo.origin);
  }

  it("answers 503 and logs the settings that trust it when told nothing", async (t) => {
    const cert = makeTestCert(t);
    const demo = await startDemo({}, { starttls: true, tls: cert });
    t.after(() => demo.close());
    assert.equal((await begin(demo)).status, 503);
    assert.match(demo.logs(), /certificate is not trusted \(DEPTH_ZERO_SELF_SIGNED_CERT\); trust it with the option caFile/);
    assert.equal(demo.smtp.messages.length, 0);
  });

  it("sends over TLS once SMTP_CA names its certificate, or SMTP_CERT_SHA256 pins it", async (t) => {
    const cert = makeTestCert(t);
    for (const env of [{ SMTP_CA: cert.certFile }, { SMTP_CERT_SHA256: cert.sha256 }]) {
      const demo = await startDemo(env, { starttls: true, tls: cert });
      try {
        assert.equal((await begin(demo)).location, "/signin?sent=1", JSON.stringify(env));
        assert.equal((await demo.smtp.waitForMessage()).secure, true);
      } finally {
        await demo.close();
      }
    }
  });
});
