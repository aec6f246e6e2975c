/*
 * Localization of the demo over plain HTTP, as curl would see it: the
 * language comes from Accept-Language until the locale switch (`POST
 * /_locale`) writes the `framework_locale` cookie, which then wins on every
 * request. Expected texts are read from the catalogs the demo ships.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { startDemo, type Demo } from "../_support/demo.ts";

const ROOT = new URL("../../../", import.meta.url);

function message(file: string, key: string): string {
  const catalog: unknown = JSON.parse(readFileSync(new URL(file, ROOT), "utf8"));
  const text = typeof catalog === "object" && catalog !== null && key in catalog ? Reflect.get(catalog, key) : undefined;
  if (typeof text !== "string") throw new Error(`${file}: no ${key}`);
  return text;
}

describe("POST /_locale and Accept-Language in the demo", () => {
  let demo: Demo;

  before(async () => {
    demo = await startDemo();
  });
  after(async () => {
    await demo?.close();
  });

  async function get(path: string, headers: Record<string, string>): Promise<{ status: number; body: string; vary: string }> {
    const res = await fetch(demo.origin + path, { headers, redirect: "manual" });
    return { status: res.status, body: await res.text(), vary: res.headers.get("vary") ?? "" };
  }

  async function switchTo(locale: string, headers: Record<string, string> = {}): Promise<Response> {
    return fetch(`${demo.origin}/_locale`, {
      method: "POST",
      redirect: "manual",
      headers: { Origin: demo.origin, "Content-Type": "application/x-www-form-urlencoded", ...headers },
      body: new URLSearchParams({ locale, next: "/signin" }).toString(),
    });
  }

  it("answers Accept-Language: ar in Arabic, right to left", async () => {
    const { status, body, vary } = await get("/", { "Accept-Language": "ar" });
    assert.equal(status, 200);
    assert.match(body, /<html lang="ar" dir="rtl">/);
    assert.ok(body.includes(message("examples/demo/locales/ar.json", "demo.title")));
    assert.match(body, /\p{Script=Arabic}{3,}/u);
    assert.doesNotMatch(body, new RegExp(message("examples/demo/locales/en.json", "demo.title")));
    assert.match(vary, /Accept-Language/);
    const en = await get("/", { "Accept-Language": "en-GB,en;q=0.8" });
    assert.match(en.body, /<html lang="en" dir="ltr">/);
  });

  it("offers the languages in one compact form: a <select> of every locale and a submit button, no script", async () => {
    const { body } = await get("/", { "Accept-Language": "ar" });
    const forms = body.match(/<form class="language" method="post" action="\/_locale">[\s\S]*?<\/form>/g) ?? [];
    assert.equal(forms.length, 1);
    const form = forms[0] ?? "";
    assert.equal((form.match(/<option /g) ?? []).length, 12);
    assert.match(form, /<option value="ar" lang="ar" selected>/);
    assert.match(form, /<select id="language" name="locale">/);
    assert.match(form, /<button class="secondary" type="submit">/);
    assert.doesNotMatch(body, /<script(?![^>]*src=)/);
  });

  it("answers an unknown path with a translated 404 page in the layout", async () => {
    const { status, body } = await get("/no/such/page", { "Accept-Language": "ar" });
    assert.equal(status, 404);
    assert.match(body, /<html lang="ar" dir="rtl">/);
    assert.ok(body.includes(message("examples/demo/locales/ar.json", "starter.not_found.body")));
    assert.match(body, /data-status="404"/);
  });

  it("answers a wrong method on a known path 405 with Allow, not the 404 page (Mux.NotFound, not a catch-all)", async () => {
    const res = await fetch(new URL("/", demo.origin), { method: "DELETE", headers: { Origin: demo.origin } });
    assert.equal(res.status, 405);
    assert.equal(res.headers.get("allow"), "GET, HEAD");
    assert.equal((await get("/no/such/page", {})).status, 404);
  });

  it("switches to French with a same-origin form POST, and the choice persists", async () => {
    const res = await switchTo("fr");
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/signin");
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith("framework_locale="));
    assert.ok(cookie !== undefined);
    assert.match(cookie, /^framework_locale=fr;/);
    assert.match(cookie, /Path=\//);
    const jar = { Cookie: "framework_locale=fr" };
    const signin = await get("/signin", jar);
    assert.equal(signin.status, 200);
    assert.match(signin.body, /<html lang="fr" dir="ltr">/);
    assert.ok(signin.body.includes(`<h1>${message("catalogs/fr.json", "signin.title")}</h1>`));
    for (const path of ["/", "/signin?sent=1", "/signin?err=expired"]) {
      const page = await get(path, { ...jar, "Accept-Language": "ar" });
      assert.match(page.body, /<html lang="fr" dir="ltr">/, `${path}: the cookie beats Accept-Language`);
    }
    const home = await get("/", jar);
    assert.ok(home.body.includes(message("examples/demo/locales/fr.json", "demo.title")));
  });

  it("refuses a cross-site switch and an undeclared locale without setting a cookie", async () => {
    for (const [res, status] of [
      [await switchTo("fr", { "Sec-Fetch-Site": "cross-site" }), 403],
      [await switchTo("fr", { Origin: "http://evil.example" }), 403],
      [await switchTo("xx"), 400],
    ] as const) {
      assert.equal(res.status, status);
      assert.deepEqual(res.headers.getSetCookie(), []);
    }
  });

  it("logged no server error", () => {
    assert.deepEqual(demo.errorLogs(), []);
  });
});
