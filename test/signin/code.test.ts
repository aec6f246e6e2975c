import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CODE_LENGTH, LINK_TTL } from "../../lib/signin/index.ts";
import { CODE_MISS_LIMIT } from "../../lib/signin/rate.ts";
import { MAX_CODE_ATTEMPTS } from "../../lib/signin/link-code.ts";
import { METHOD_EMAIL_CODE } from "../../lib/signin/first-factors.ts";
import { CookieJar, count, extractCode, startSigninApp, type SigninApp, type TestResponse } from "../_support/signin-app.ts";

/** Begins for `address` from `jar` and returns the emailed link and code. */
async function askFrom(app: SigninApp, address: string, jar: CookieJar): Promise<{ link: string; code: string }> {
  const sent = app.smtp?.messages.filter((m) => m.to.includes(address)).length ?? 0;
  assert.equal((await app.begin(address, { jar })).location, "/signin?sent=1");
  const link = await app.linkFor(address, sent + 1);
  const message = app.smtp?.messages.filter((m) => m.to.includes(address))[sent];
  return { link, code: extractCode(message?.parsed.text ?? "") };
}

function enter(app: SigninApp, jar: CookieJar, code: string): Promise<TestResponse> {
  return app.request("POST", "/auth/code", { jar, form: { code } });
}

/** What a client can tell apart about a refusal: everything but the Date. */
function observable(res: TestResponse): unknown {
  const headers = { ...res.headers };
  delete headers.date;
  return { status: res.status, headers, body: res.body, setCookie: res.setCookie };
}

describe("Signin VerifyCode()", () => {
  it("emails a CODE_LENGTH-digit code (6) in the text and HTML parts beside the link", async (t) => {
    assert.equal(CODE_LENGTH, 6);
    const app = await startSigninApp(t);
    const { link, code } = await askFrom(app, "ann@example.com", new CookieJar());
    const message = app.smtp?.messages[0];
    assert.match(code, /^[0-9]{6}$/);
    assert.ok(message?.parsed.text?.includes(link));
    assert.ok(message?.parsed.html?.includes(`data-signin-code="${code}"`), "the HTML part carries the code");
    assert.ok(message?.parsed.html?.includes(link), "and the link");
    // The code is not stored: the row holds only an HMAC of it.
    assert.equal(count(app.db, "signin_links", "code_hash LIKE ?", `%${code}%`), 0);
  });

  it("signs in the asking browser with the code read on another device, once, spending the link", async (t) => {
    const app = await startSigninApp(t);
    const laptop = new CookieJar();
    const { link, code } = await askFrom(app, "ann@example.com", laptop);
    const phone = await app.request("GET", link, { unbound: true });
    assert.ok(phone.body.includes(`data-signin-code="${code}"`), "the phone shows the code");
    const typed = await enter(app, laptop, ` ${code.slice(0, 3)} ${code.slice(3)} `);
    assert.equal(typed.status, 303);
    assert.equal(typed.location, "/account");
    const me = JSON.parse((await app.request("GET", "/me", { jar: laptop })).body);
    assert.equal(me.from.Method, METHOD_EMAIL_CODE);
    assert.equal(METHOD_EMAIL_CODE, "emailcode");
    assert.equal(count(app.db, "signin_links"), 0, "code and link are single-use together");
    assert.equal((await app.request("GET", link, { jar: laptop })).location, "/signin?err=expired");
    assert.equal((await enter(app, laptop, code)).location, "/signin?err=code");
    assert.equal(count(app.db, "sessions"), 1);
  });

  it("accepts a right code after MAX_CODE_ATTEMPTS - 1 wrong ones", async (t) => {
    assert.equal(MAX_CODE_ATTEMPTS, 5);
    const app = await startSigninApp(t);
    const laptop = new CookieJar();
    const { code } = await askFrom(app, "ann@example.com", laptop);
    const wrong = String((Number(code) + 1) % 10 ** CODE_LENGTH).padStart(CODE_LENGTH, "0");
    for (let i = 1; i < MAX_CODE_ATTEMPTS; i++) assert.equal((await enter(app, laptop, wrong)).location, "/signin?err=code", `try ${i}`);
    assert.equal((await enter(app, laptop, code)).location, "/account");
  });

  it("voids the pending sign-in at the 5th wrong code (?err=expired); the right code and the link then fail", async (t) => {
    const app = await startSigninApp(t);
    const laptop = new CookieJar();
    const { link, code } = await askFrom(app, "ann@example.com", laptop);
    const wrong = String((Number(code) + 7) % 10 ** CODE_LENGTH).padStart(CODE_LENGTH, "0");
    for (let i = 1; i < 5; i++) assert.equal((await enter(app, laptop, wrong)).location, "/signin?err=code", `try ${i}`);
    assert.equal((await enter(app, laptop, wrong)).location, "/signin?err=expired", "try 5 voids it");
    assert.equal(count(app.db, "signin_links"), 0);
    assert.equal((await enter(app, laptop, code)).location, "/signin?err=code");
    assert.equal((await app.request("GET", link, { jar: laptop })).location, "/signin?err=expired");
    assert.equal(count(app.db, "sessions"), 0);
  });

  it("lives as long as its link: LINK_TTL (10 minutes)", async (t) => {
    const app = await startSigninApp(t);
    const early = new CookieJar();
    const one = await askFrom(app, "ann@example.com", early);
    app.clock.advance(LINK_TTL - 1);
    assert.equal((await enter(app, early, one.code)).location, "/account");
    const late = new CookieJar();
    const two = await askFrom(app, "bob@example.com", late);
    app.clock.advance(10 * 60 * 1000);
    assert.equal((await enter(app, late, two.code)).location, "/signin?err=code");
    assert.equal(count(app.db, "sessions"), 1);
  });

  it("gives a malformed code, another browser's code, a reused code and a missing binding one identical refusal", async (t) => {
    const app = await startSigninApp(t);
    const mine = new CookieJar();
    const other = new CookieJar();
    const { code } = await askFrom(app, "ann@example.com", mine);
    const theirs = await askFrom(app, "bob@example.com", other);
    const answers: unknown[] = [];
    answers.push(observable(await enter(app, mine, "12ab56")));
    answers.push(observable(await app.request("POST", "/auth/code", { jar: mine, form: {} })));
    answers.push(observable(await enter(app, other, code)));
    answers.push(observable(await app.request("POST", "/auth/code", { form: { code }, unbound: true })));
    answers.push(
      observable(
        await app.request("POST", "/auth/code", {
          jar: mine,
          body: "code=%ZZ&code=1",
          headers: { "Content-Type": "application/x-www-form-urlencoded" },
        }),
      ),
    );
    assert.equal((await enter(app, mine, code)).location, "/account");
    answers.push(observable(await enter(app, mine, code)));
    const first = answers[0];
    assert.deepEqual(first, { status: 303, headers: (first as { headers: object }).headers, body: "", setCookie: [] });
    assert.equal((first as { headers: Record<string, string> }).headers["location"], "/signin?err=code");
    for (const a of answers) assert.deepEqual(a, first);
    // Bob's pending sign-in is untouched by Ann's code being tried in his browser.
    assert.equal((await enter(app, other, theirs.code)).location, "/account");
  });
});

describe("the code's budget per address (CODE_MISS_LIMIT)", () => {
  /** A browser that asks for a link to `address` and types MAX_CODE_ATTEMPTS wrong codes, `rounds` times. */
  async function guessFrom(app: SigninApp, address: string, guesser: CookieJar, rounds: number): Promise<void> {
    for (let round = 0; round < rounds; round++) {
      const { code } = await askFrom(app, address, guesser);
      const wrong = code === "000000" ? "111111" : "000000";
      for (let i = 1; i <= MAX_CODE_ATTEMPTS; i++) await enter(app, guesser, wrong);
    }
  }

  it("an attacker's 10 wrong codes at someone's address leave that person's own code and link working", async (t) => {
    assert.deepEqual({ ...CODE_MISS_LIMIT }, { Max: 10, Window: 60 * 60 * 1000 });
    const app = await startSigninApp(t);
    const person = new CookieJar();
    const first = await askFrom(app, "ann@example.com", person);
    // The attacker's own browser asks for links to Ann's address (the mail goes to Ann) and guesses.
    await guessFrom(app, "ann@example.com", new CookieJar(), 2);
    const second = await askFrom(app, "ann@example.com", person);
    assert.equal(count(app.db, "signin_links"), 2, "Ann's two links are kept (the attacker's were voided)");
    assert.equal((await enter(app, person, first.code)).location, "/account", "Ann's code signs her in");
    assert.equal((await app.request("GET", second.link, { jar: person })).location, "/account", "Ann's link signs her in");
    assert.equal(count(app.db, "signin_links"), 0);
  });

  it("past 10 wrong codes in an hour, a browser that typed a wrong one takes no more codes for the address; its link still signs in", async (t) => {
    const app = await startSigninApp(t);
    const guesser = new CookieJar();
    await guessFrom(app, "ann@example.com", guesser, 2);
    // A third link to the same browser: even its right code is refused, and nothing is voided.
    const { link, code } = await askFrom(app, "ann@example.com", guesser);
    assert.equal((await enter(app, guesser, code)).location, "/signin?err=code");
    assert.equal(count(app.db, "signin_links"), 1);
    assert.equal(count(app.db, "sessions"), 0);
    assert.equal((await app.request("GET", link, { jar: guesser })).location, "/account", "the link opened in its browser still works");
    // An hour later that browser's codes work again.
    app.clock.advance(60 * 60 * 1000);
    const later = await askFrom(app, "ann@example.com", guesser);
    assert.equal((await enter(app, guesser, later.code)).location, "/account");
  });

  it("past the budget, a fresh browser gets one wrong try at the address (what bounds an attacker who rotates browsers)", async (t) => {
    const app = await startSigninApp(t);
    await guessFrom(app, "ann@example.com", new CookieJar(), 2);
    const fresh = new CookieJar();
    const { code } = await askFrom(app, "ann@example.com", fresh);
    const wrong = code === "000000" ? "111111" : "000000";
    assert.equal((await enter(app, fresh, wrong)).location, "/signin?err=code");
    assert.equal((await enter(app, fresh, code)).location, "/signin?err=code", "the right code after one wrong try is refused");
    assert.equal(count(app.db, "sessions"), 0);
  });

  it("voids every pending link of the browser at the 5th wrong try, the newer ones too (SPEC §3.2, latch)", async (t) => {
    const app = await startSigninApp(t);
    const jar = new CookieJar();
    const first = await askFrom(app, "ann@example.com", jar);
    const wrong = first.code === "000000" ? "111111" : "000000";
    for (let i = 1; i <= 3; i++) await enter(app, jar, wrong);
    const second = await askFrom(app, "ann@example.com", jar);
    const wronger = second.code === wrong ? "222222" : wrong;
    assert.equal((await enter(app, jar, wronger)).location, "/signin?err=code");
    assert.equal((await enter(app, jar, wronger)).location, "/signin?err=expired");
    assert.equal(count(app.db, "signin_links"), 0, "the newer link is voided with the older one");
    assert.equal((await enter(app, jar, second.code)).location, "/signin?err=code");
  });
});

describe("Begin and VerifyCode without crossOriginProtection in Wrap", () => {
  for (const headers of [{ "Sec-Fetch-Site": "cross-site" }, { Origin: "https://evil.example" }]) {
    it(`refuse a cross-origin POST themselves (${Object.keys(headers)[0]}): 403, no link, no mail, no binding (login CSRF)`, async (t) => {
      const app = await startSigninApp(t, { crossOriginProtection: false });
      const begun = await app.request("POST", "/signin", { form: { email: "eve@example.com" }, headers });
      assert.equal(begun.status, 403);
      assert.equal(begun.setCookie.length, 0);
      assert.equal(count(app.db, "signin_links"), 0);
      assert.equal(app.smtp?.messages.length, 0);
      assert.equal((await app.request("POST", "/auth/code", { form: { code: "123456" }, headers })).status, 403);
      // The same-origin form still works.
      assert.equal((await app.begin("ann@example.com")).location, "/signin?sent=1");
    });
  }
});
