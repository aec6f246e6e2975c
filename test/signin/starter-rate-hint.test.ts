/*
 * The starter's sign-in page says, in development, which limit refused a link and when it resets (issue 42: the
 * limit bites during development with no hint): Begin's `?err=rate&limit=…&retry=…` (lib/signin rate-hint.ts) shown in
 * the person's words (`starter.signin.rate_*`), the wait in minutes rounded up, or in seconds under a minute; with a
 * Mailer, or query text it does not know, the page says only the contract's sentence.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CLIENT_DIR, NewAssets } from "../../lib/assets/index.ts";
import type { RateLimits } from "../../lib/signin/index.ts";
import { LOCALES_DIR, STATIC_DIR } from "../../examples/starter/files.ts";
import { signinPage } from "../../examples/starter/pages/signin.ts";
import { startSigninApp, type SigninApp } from "../_support/signin-app.ts";

const MINUTE = 60_000;
const LOOSE = { Max: 1000, Window: 60 * MINUTE };
const limits: RateLimits = { PerAddress: { Max: 1, Window: 15 * MINUTE }, PerIP: LOOSE, Global: LOOSE };

async function start(t: Parameters<typeof startSigninApp>[0], mail: "log" | "smtp"): Promise<SigninApp> {
  const assets = NewAssets([STATIC_DIR, CLIENT_DIR]);
  return startSigninApp(t, {
    mail,
    config: { RateLimits: limits },
    locales: ["en", "de", "ar"],
    localeFS: LOCALES_DIR,
    extend: (mux) => mux.Handle("GET /signin", signinPage(assets)),
  });
}

/** The refusal's notice as the page renders it, tags removed. */
async function notice(app: SigninApp, target: string, language = "en"): Promise<string> {
  const page = await app.request("GET", target, { headers: { "Accept-Language": language } });
  assert.equal(page.status, 200);
  const alert = /<p class="notice bad" role="alert" data-outcome="rate">([\s\S]*?)<\/p>/.exec(page.body)?.[1] ?? "";
  return alert
    .replace(/<[^>]+>/g, "")
    .replace(/\s+/g, " ")
    .trim();
}

describe("the starter's sign-in page after a refused link", () => {
  it("in development names the limit and when it resets, in the person's language", async (t) => {
    const app = await start(t, "log");
    assert.equal((await app.begin("ann@example.com")).location, "/signin?sent=1");
    app.clock.advance(5 * MINUTE);
    const refused = (await app.begin("ann@example.com")).location ?? "";
    assert.equal(refused, "/signin?err=rate&limit=PerAddress&retry=600");
    assert.equal(
      await notice(app, refused),
      "Too many sign-in requests. Wait a few minutes, then try again. In development: the limit on sign-in links to one address was reached. It resets in 10 minutes.",
    );
    assert.match(
      await notice(app, refused, "de"),
      /Die Grenze für Anmeldelinks an eine Adresse ist erreicht\. Sie wird in 10 Minuten zurückgesetzt\.$/,
    );
    assert.match(await notice(app, refused, "ar"), /روابط تسجيل الدخول إلى عنوان واحد/);
  });

  it("says each limit, and a wait in minutes rounded up from 60 s, in seconds below", async (t) => {
    const app = await start(t, "log");
    const hint = async (query: string): Promise<string> =>
      (await notice(app, `/signin?err=rate&${query}`)).replace(/^.*?try again\. ?/, "");
    assert.equal(
      await hint("limit=PerIP&retry=3600"),
      "In development: the limit on sign-in links from one network address was reached. It resets in 60 minutes.",
    );
    assert.equal(
      await hint("limit=Global&retry=61"),
      "In development: the limit on sign-in links to all addresses together was reached. It resets in 2 minutes.",
    );
    assert.equal(
      await hint("limit=Global&retry=60"),
      "In development: the limit on sign-in links to all addresses together was reached. It resets in 1 minute.",
    );
    assert.equal(
      await hint("limit=PerAddress&retry=59"),
      "In development: the limit on sign-in links to one address was reached. It resets in 59 seconds.",
    );
  });

  it("says nothing more for a limit or a wait it does not know, nor with a Mailer", async (t) => {
    const app = await start(t, "log");
    const contract = "Too many sign-in requests. Wait a few minutes, then try again.";
    for (const query of [
      "",
      "limit=toString&retry=60",
      "limit=<b>x</b>&retry=60",
      "limit=PerIP&retry=0",
      "limit=PerIP&retry=-5",
      "limit=PerIP&retry=1e3",
      "limit=PerIP",
    ]) {
      assert.equal(await notice(app, `/signin?err=rate&${query}`), contract, query);
    }
    const live = await start(t, "smtp");
    assert.equal((await live.begin("ann@example.com")).location, "/signin?sent=1");
    const refused = (await live.begin("ann@example.com")).location ?? "";
    assert.equal(refused, "/signin?err=rate");
    assert.equal(await notice(live, refused), contract);
  });
});
