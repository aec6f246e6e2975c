import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { newLogger } from "../../lib/http/index.ts";
import { newLogMailer } from "../../lib/mail/index.ts";
import { DEFAULT_RATE_LIMITS, type RateLimits } from "../../lib/signin/index.ts";
import { FakeClock } from "../_support/clock.ts";
import { count, startSigninApp, type SigninApp } from "../_support/signin-app.ts";

const MINUTE = 60 * 1000;
const LOOSE = { Max: 1000, Window: 60 * MINUTE };

async function outcome(app: SigninApp, email: string, ip?: string): Promise<string | undefined> {
  const res = await app.begin(email, ip === undefined ? {} : { headers: { "X-Test-IP": ip } });
  assert.equal(res.status, 303);
  return res.location;
}

const SENT = "/signin?sent=1";
const RATE = "/signin?err=rate";

describe("Signin Begin() rate limits", () => {
  it("documents DEFAULT_RATE_LIMITS: 5 per address / 15 min, 20 per IP / hour, 500 global / hour", () => {
    assert.deepEqual(DEFAULT_RATE_LIMITS, {
      PerAddress: { Max: 5, Window: 15 * MINUTE },
      PerIP: { Max: 20, Window: 60 * MINUTE },
      Global: { Max: 500, Window: 60 * MINUTE },
    });
    assert.ok(Object.isFrozen(DEFAULT_RATE_LIMITS) && Object.isFrozen(DEFAULT_RATE_LIMITS.PerAddress));
  });

  it("trips the default per-address limit at the 6th link in 15 minutes (spellings count as one)", async (t) => {
    const app = await startSigninApp(t);
    for (const email of ["ann@example.com", "ANN@example.com", " Ann@Example.Com", "ann@EXAMPLE.com", "ann@example.com"]) {
      assert.equal(await outcome(app, email), SENT, email);
    }
    assert.equal(await outcome(app, "ann@example.com"), RATE);
    assert.equal(await outcome(app, "Ann@Example.com"), RATE);
    assert.equal(app.smtp?.messages.length, 5, "no email is sent once limited");
    assert.equal(await outcome(app, "bob@example.com"), SENT, "another address is not limited");
    app.clock.advance(15 * MINUTE - 1);
    assert.equal(await outcome(app, "ann@example.com"), RATE);
    app.clock.advance(1);
    assert.equal(await outcome(app, "ann@example.com"), SENT);
  });

  it("trips the default per-IP limit at the 21st link in an hour", async (t) => {
    const app = await startSigninApp(t);
    for (let i = 0; i < 20; i++) assert.equal(await outcome(app, `user${i}@example.com`), SENT, `send ${i + 1}`);
    assert.equal(await outcome(app, "user20@example.com"), RATE);
    assert.equal(app.smtp?.messages.length, 20);
  });

  it("limits per client IP as ClientIP reports it", async (t) => {
    const limits: RateLimits = { PerAddress: LOOSE, PerIP: { Max: 3, Window: 60 * MINUTE }, Global: LOOSE };
    const app = await startSigninApp(t, { config: { RateLimits: limits, ClientIP: (req) => String(req.headers["x-test-ip"] ?? "none") } });
    for (const n of [1, 2, 3]) assert.equal(await outcome(app, `a${n}@example.com`, "192.0.2.1"), SENT);
    assert.equal(await outcome(app, "a4@example.com", "192.0.2.1"), RATE);
    assert.equal(await outcome(app, "a4@example.com", "192.0.2.2"), SENT);
  });

  it("trips the global limit whatever the address and IP", async (t) => {
    const limits: RateLimits = { PerAddress: LOOSE, PerIP: LOOSE, Global: { Max: 4, Window: 60 * MINUTE } };
    const app = await startSigninApp(t, { config: { RateLimits: limits, ClientIP: (req) => String(req.headers["x-test-ip"] ?? "none") } });
    for (const n of [1, 2, 3, 4]) assert.equal(await outcome(app, `g${n}@example.com`, `198.51.100.${n}`), SENT);
    assert.equal(await outcome(app, "g5@example.com", "198.51.100.5"), RATE);
    assert.equal(count(app.db, "signin_links"), 4);
  });

  it("slides the window and does not count refusals", async (t) => {
    const limits: RateLimits = { PerAddress: { Max: 2, Window: 10 * MINUTE }, PerIP: LOOSE, Global: LOOSE };
    const app = await startSigninApp(t, { config: { RateLimits: limits } });
    assert.equal(await outcome(app, "ann@example.com"), SENT); // t=0
    app.clock.advance(5 * MINUTE);
    assert.equal(await outcome(app, "ann@example.com"), SENT); // t=5
    app.clock.advance(4 * MINUTE);
    assert.equal(await outcome(app, "ann@example.com"), RATE); // t=9, not recorded
    app.clock.advance(1 * MINUTE);
    assert.equal(await outcome(app, "ann@example.com"), SENT); // t=10: the t=0 send left the window
    assert.equal(await outcome(app, "ann@example.com"), RATE); // sends at 5 and 10 remain
    app.clock.advance(5 * MINUTE);
    assert.equal(await outcome(app, "ann@example.com"), SENT); // t=15: the t=5 send left
  });

  it("survives a restart: the same SQLite file is still limited", async (t) => {
    const limits: RateLimits = { PerAddress: { Max: 2, Window: 15 * MINUTE }, PerIP: LOOSE, Global: LOOSE };
    const clock = new FakeClock();
    const first = await startSigninApp(t, { clock, config: { RateLimits: limits } });
    assert.equal(await outcome(first, "ann@example.com"), SENT);
    assert.equal(await outcome(first, "ann@example.com"), SENT);
    assert.equal(await outcome(first, "ann@example.com"), RATE);
    await first.closeApp();
    assert.equal(first.db.open, false, "the database handle is closed");

    const second = await startSigninApp(t, { clock, dbPath: first.dbPath, config: { RateLimits: limits } });
    assert.notEqual(second.db, first.db);
    assert.equal(await outcome(second, "ann@example.com"), RATE);
    assert.equal(second.smtp?.messages.length, 0);
    clock.advance(15 * MINUTE);
    assert.equal(await outcome(second, "ann@example.com"), SENT);
  });

  it("in development (no Mailer) names the limit and its reset in the answer and the log; with a Mailer, the contract's answer", async (t) => {
    const limits: RateLimits = { PerAddress: { Max: 1, Window: 15 * MINUTE }, PerIP: LOOSE, Global: LOOSE };
    const json = { headers: { Accept: "application/json" } };
    const dev = await startSigninApp(t, { mail: "log", config: { RateLimits: limits } });
    assert.equal(await outcome(dev, "ann@example.com"), SENT);
    dev.clock.advance(5 * MINUTE);
    const resets = new Date(dev.clock.now().getTime() + 10 * MINUTE).toISOString();
    assert.equal(await outcome(dev, "ann@example.com"), `${RATE}&limit=PerAddress&retry=600`);
    const api = await dev.begin("ann@example.com", json);
    assert.equal(api.status, 429);
    assert.equal(api.headers["retry-after"], "600");
    const message = `development: sign-in limit RateLimits.PerAddress (1 links per 15 minutes) reached; it resets in 600 s, at ${resets}. Shown because mail goes to the log (development); set signin Config.RateLimits to change it.`;
    assert.deepEqual(JSON.parse(api.body), { error: "rate", limit: "PerAddress", retryAfter: 600, message });
    assert.ok(
      dev.log.lines().some((l) => l["msg"] === message && l["level"] === "warn"),
      JSON.stringify(dev.log.lines().at(-1)),
    );

    // The guide's and the demo's development set-up passes the logging sender as its Mailer: development too.
    const given = await startSigninApp(t, {
      mail: "log",
      config: { RateLimits: limits, Mailer: newLogMailer(newLogger({ level: "error" })) },
    });
    assert.equal(await outcome(given, "ann@example.com"), SENT);
    assert.equal(await outcome(given, "ann@example.com"), `${RATE}&limit=PerAddress&retry=900`);

    const prod = await startSigninApp(t, { config: { RateLimits: limits } });
    assert.equal(await outcome(prod, "ann@example.com"), SENT);
    assert.equal(await outcome(prod, "ann@example.com"), RATE);
    const refused = await prod.begin("ann@example.com", json);
    assert.equal(refused.status, 429);
    assert.deepEqual(JSON.parse(refused.body), { error: "rate" });
    assert.ok(!prod.log.lines().some((l) => String(l["msg"]).startsWith("development:")));
  });
});
