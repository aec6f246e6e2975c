import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, request } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { LocaleCookie, LocaleFrom, LocaleSwitchPath, NewLocales } from "../../lib/i18n/index.ts";
import { safeNext } from "../../lib/i18n/switch.ts";
import { cookiePair } from "../_support/http-client.ts";
import { postForm, send, serve } from "./harness.ts";

const locales = NewLocales(["en", "fr", "de"], "en", undefined, undefined);

describe("Locales.SwitchHandler", () => {
  it("writes the locale cookie and redirects with 303", async (t) => {
    const base = await serve(t, locales.SwitchHandler);
    const reply = await postForm(base + LocaleSwitchPath, { locale: "fr", next: "/account?tab=1" });
    assert.equal(reply.status, 303);
    assert.equal(reply.headers.location, "/account?tab=1");
    assert.deepEqual(reply.headers["set-cookie"], [`${LocaleCookie}=fr; Max-Age=31536000; Path=/; SameSite=Lax`]);
  });

  it("sets a cookie the middleware then honours", async (t) => {
    const switchBase = await serve(t, locales.SwitchHandler);
    const appBase = await serve(
      t,
      locales.Middleware((req, res) => void res.end(LocaleFrom(req))),
    );
    const reply = await postForm(switchBase, { locale: "DE" });
    const cookie = cookiePair(reply.headers["set-cookie"]?.[0] ?? "");
    assert.equal(cookie, "framework_locale=de");
    assert.equal((await send(`${appBase}/x`, { headers: { Cookie: cookie, "Accept-Language": "fr" } })).body, "de");
  });

  it("refuses an undeclared code with 400 and sets no cookie", async (t) => {
    const base = await serve(t, locales.SwitchHandler);
    for (const code of ["ja", "", "fr;x", "fr\r\nSet-Cookie: a=b"]) {
      const reply = await postForm(base, { locale: code, next: "/" });
      assert.equal(reply.status, 400, code);
      assert.equal(reply.headers["set-cookie"], undefined);
      assert.match(reply.body, /unknown locale/);
      // Every plain-text refusal is lib/internal's writeText: its length says where the answer ends (RFC 9112 §6.3).
      assert.equal(reply.headers["content-length"], String(Buffer.byteLength(reply.body)));
    }
    const missing = await postForm(base, { next: "/" });
    assert.equal(missing.status, 400);
  });

  it("answers 405 with Allow for other methods", async (t) => {
    const base = await serve(t, locales.SwitchHandler);
    const reply = await send(base, { method: "GET" });
    assert.equal(reply.status, 405);
    assert.equal(reply.headers.allow, "POST");
    assert.equal(reply.headers["set-cookie"], undefined);
  });

  it("refuses a cross-site form post with 403", async (t) => {
    const base = await serve(t, locales.SwitchHandler);
    const cross = await postForm(base, { locale: "fr" }, { "Sec-Fetch-Site": "cross-site" });
    assert.equal(cross.status, 403);
    assert.equal(cross.headers["set-cookie"], undefined);
    const same = await postForm(base, { locale: "fr" }, { "Sec-Fetch-Site": "same-origin" });
    assert.equal(same.status, 303);
  });

  it("answers 415 for a body that is not a form", async (t) => {
    const base = await serve(t, locales.SwitchHandler);
    const reply = await send(base, { method: "POST", headers: { "Content-Type": "application/json" }, body: '{"locale":"fr"}' });
    assert.equal(reply.status, 415);
  });

  it("refuses open redirects", async (t) => {
    const base = await serve(t, locales.SwitchHandler);
    const rows: { next: string; want: string }[] = [
      { next: "//evil.example/x", want: "/" },
      { next: "/\\evil.example", want: "/" },
      { next: "\\\\evil.example", want: "/" },
      { next: "https://evil.example/", want: "/" },
      { next: "javascript:alert(1)", want: "/" },
      { next: "/\t/evil.example", want: "/" },
      { next: "/\n/evil.example", want: "/" },
      { next: "evil.example", want: "/" },
      { next: "/caf\u00e9", want: "/" },
      { next: "", want: "/" },
      { next: "/%2F%2Fevil.example", want: "/%2F%2Fevil.example" },
      { next: "/jobs/42?x=1#top", want: "/jobs/42?x=1#top" },
      { next: "/de/account", want: "/fr/account" },
      { next: "/fr", want: "/fr/" },
    ];
    for (const row of rows) {
      const reply = await postForm(base, { locale: "fr", next: row.next });
      assert.equal(reply.status, 303, JSON.stringify(row.next));
      assert.equal(reply.headers.location, row.want, JSON.stringify(row.next));
    }
  });

  it("adds Secure when the request came over TLS", (t) => {
    let dir = "";
    try {
      dir = mkdtempSync(join(tmpdir(), "latch-i18n-tls-"));
      execFileSync(
        "openssl",
        [
          "req",
          "-x509",
          "-newkey",
          "ec",
          "-pkeyopt",
          "ec_paramgen_curve:prime256v1",
          "-nodes",
          "-days",
          "1",
          "-subj",
          "/CN=localhost",
          "-addext",
          "subjectAltName=IP:127.0.0.1",
          "-keyout",
          join(dir, "key.pem"),
          "-out",
          join(dir, "cert.pem"),
        ],
        { stdio: "ignore" },
      );
    } catch {
      t.skip("openssl is not available to make a test certificate");
      return;
    } finally {
      if (dir !== "") t.after(() => rmSync(dir, { recursive: true, force: true }));
    }
    const cert = readFileSync(join(dir, "cert.pem"));
    const server = createServer({ key: readFileSync(join(dir, "key.pem")), cert }, (req, res) => void locales.SwitchHandler(req, res));
    return new Promise<void>((resolve, reject) => {
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo;
        const body = "locale=de&next=%2F";
        const req = request(
          {
            host: "127.0.0.1",
            port,
            method: "POST",
            path: "/_locale",
            ca: cert,
            headers: { "Content-Type": "application/x-www-form-urlencoded", "Content-Length": String(body.length) },
          },
          (res) => {
            res.resume();
            server.close();
            try {
              assert.equal(res.statusCode, 303);
              assert.deepEqual(res.headers["set-cookie"], ["framework_locale=de; Max-Age=31536000; Path=/; Secure; SameSite=Lax"]);
              resolve();
            } catch (e) {
              reject(e);
            }
          },
        );
        req.on("error", (e) => {
          server.close();
          reject(e);
        });
        req.end(body);
      });
    });
  });
});

describe("safeNext()", () => {
  const rows: { next: string | null; want: string }[] = [
    { next: null, want: "/" },
    { next: "/", want: "/" },
    { next: "/a/b?c=d", want: "/a/b?c=d" },
    { next: "//x", want: "/" },
    { next: "/\\x", want: "/" },
    { next: "/a\\b", want: "/" },
    { next: "http:/x", want: "/" },
    { next: "/a\r\nLocation: //x", want: "/" },
    { next: "/a b", want: "/" },
    { next: `/${"a".repeat(3000)}`, want: "/" },
  ];
  for (const row of rows) {
    it(`maps ${JSON.stringify(row.next)?.slice(0, 30)} to ${row.want}`, () => {
      assert.equal(safeNext(row.next), row.want);
    });
  }
});
