import assert from "node:assert/strict";
import type { IncomingMessage, ServerResponse } from "node:http";
import { describe, it, type TestContext } from "node:test";
import { LocaleFrom, LocaleItems, NewLocales, T, Tf, type Locales } from "../../lib/i18n/index.ts";
import { send, serve } from "./harness.ts";

/** An app handler that reports what it saw. */
function echo(req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(200, { "Content-Type": "application/json" });
  res.end(JSON.stringify({ url: req.url, locale: LocaleFrom(req), title: T(req, "signin.title"), items: LocaleItems(req) }));
}

interface Seen {
  url: string;
  locale: string;
  title: string;
  items: { Code: string; Name: string; Href: string; Current: boolean }[];
}

async function start(t: TestContext, locales: Locales): Promise<(path: string, headers?: Record<string, string>) => Promise<Seen>> {
  const base = await serve(t, locales.Middleware(echo));
  return async (path, headers = {}) => {
    const reply = await send(base + path, { headers });
    assert.equal(reply.status, 200);
    const seen: Seen = JSON.parse(reply.body);
    return seen;
  };
}

const locales = NewLocales(["en", "fr", "de", "ar", "pt-BR"], "en", undefined, undefined);

describe("Locales.Middleware", () => {
  it("strips a declared locale prefix before routing, keeping the query", async (t) => {
    const get = await start(t, locales);
    const rows: { path: string; url: string; locale: string }[] = [
      { path: "/fr/x", url: "/x", locale: "fr" },
      { path: "/fr/x/y?q=1&r=/fr/", url: "/x/y?q=1&r=/fr/", locale: "fr" },
      { path: "/fr", url: "/", locale: "fr" },
      { path: "/fr/", url: "/", locale: "fr" },
      { path: "/fr?q=1", url: "/?q=1", locale: "fr" },
      { path: "/pt-br/conta", url: "/conta", locale: "pt-BR" },
      { path: "/en/x", url: "/x", locale: "en" },
      { path: "/xx/x", url: "/xx/x", locale: "en" },
      { path: "/ja/x", url: "/ja/x", locale: "en" },
      { path: "/frx/y", url: "/frx/y", locale: "en" },
      { path: "/x/fr/y", url: "/x/fr/y", locale: "en" },
      { path: "/", url: "/", locale: "en" },
    ];
    for (const row of rows) {
      const seen = await get(row.path);
      assert.equal(seen.url, row.url, row.path);
      assert.equal(seen.locale, row.locale, row.path);
    }
  });

  it("resolves prefix, then cookie, then Accept-Language, then the default", async (t) => {
    const get = await start(t, locales);
    const rows: { name: string; path: string; headers: Record<string, string>; want: string }[] = [
      {
        name: "prefix beats cookie and header",
        path: "/de/x",
        headers: { Cookie: "framework_locale=fr", "Accept-Language": "ar" },
        want: "de",
      },
      {
        name: "cookie beats header",
        path: "/x",
        headers: { Cookie: "a=b; framework_locale=fr; c=d", "Accept-Language": "ar" },
        want: "fr",
      },
      { name: "quoted cookie", path: "/x", headers: { Cookie: 'framework_locale="de"' }, want: "de" },
      { name: "undeclared cookie is ignored", path: "/x", headers: { Cookie: "framework_locale=ja", "Accept-Language": "ar" }, want: "ar" },
      {
        name: "hostile cookie is ignored",
        path: "/x",
        headers: { Cookie: "framework_locale=../../etc", "Accept-Language": "de" },
        want: "de",
      },
      { name: "header with q-values", path: "/x", headers: { "Accept-Language": "ja, de;q=0.5, fr;q=0.8" }, want: "fr" },
      { name: "header region fallback", path: "/x", headers: { "Accept-Language": "pt-PT" }, want: "pt-BR" },
      { name: "malformed header gives the default", path: "/x", headers: { "Accept-Language": ";;;q=x,,, -" }, want: "en" },
      { name: "nothing gives the default", path: "/x", headers: {}, want: "en" },
    ];
    for (const row of rows) assert.equal((await get(row.path, row.headers)).locale, row.want, row.name);
  });

  it("looks messages up in the request's locale", async (t) => {
    const get = await start(t, locales);
    assert.equal((await get("/de/x")).title, "Anmelden");
    assert.equal((await get("/x", { "Accept-Language": "ar" })).title, "تسجيل الدخول");
  });

  it("sets Vary when the locale came from request headers", async (t) => {
    const base = await serve(t, locales.Middleware(echo));
    assert.match(String((await send(`${base}/x`)).headers.vary), /Accept-Language/);
    assert.equal((await send(`${base}/fr/x`)).headers.vary, undefined);
  });
});

describe("LocaleItems()", () => {
  it("lists each declared locale with its own name, prefixed href and current flag", async (t) => {
    const get = await start(t, locales);
    const seen = await get("/fr/account/keys?tab=2");
    assert.deepEqual(seen.items, [
      { Code: "en", Name: "English", Href: "/en/account/keys", Current: false },
      { Code: "fr", Name: "Français", Href: "/fr/account/keys", Current: true },
      { Code: "de", Name: "Deutsch", Href: "/de/account/keys", Current: false },
      { Code: "ar", Name: "العربية", Href: "/ar/account/keys", Current: false },
      { Code: "pt-BR", Name: "Português (Brasil)", Href: "/pt-BR/account/keys", Current: false },
    ]);
  });

  it("is empty for a one-locale app", async (t) => {
    const get = await start(t, NewLocales(["de"], "de", undefined, undefined));
    const seen = await get("/de/x");
    assert.deepEqual(seen.items, []);
    assert.equal(seen.locale, "de");
    assert.equal(seen.url, "/x");
  });
});

describe("T() without the middleware", () => {
  it("answers in framework English and LocaleFrom reports en", async (t) => {
    const base = await serve(t, (req, res) => {
      res.end(
        JSON.stringify([
          LocaleFrom(req),
          T(req, "signin.signout"),
          Tf(req, "passkey.recovery.remaining", { count: 1 }),
          T(req, "app.x"),
          LocaleItems(req),
        ]),
      );
    });
    const reply = await send(`${base}/fr/x`, { headers: { "Accept-Language": "fr" } });
    assert.deepEqual(JSON.parse(reply.body), ["en", "Sign out", "1 recovery code left", "app.x", []]);
  });
});
