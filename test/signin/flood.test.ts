import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AuthEvent } from "../../lib/session/index.ts";
import { addressBucket } from "../../lib/signin/rate.ts";
import { CookieJar, count, startSigninApp } from "../_support/signin-app.ts";

const MINUTE = 60 * 1000;
const SENT = "/signin?sent=1";
const RATE = "/signin?err=rate";

/** The n-th distinct loopback client: 127.0.<n>.1 (all of 127/8 is local on Linux). */
function client(n: number): string {
  return `127.0.${n}.1`;
}

describe("Signin Begin() rate limits under a flood (defaults)", () => {
  it("lets 25 clients spend the global budget on strangers, refuses the next stranger, and still serves a returning person", async (t) => {
    const events: AuthEvent[] = [];
    const app = await startSigninApp(t, { config: { OnAuthEvent: (e) => events.push(e) } });
    await app.signIn("ann@example.com");
    // Her first link, to an address new then, spent one unit of the global budget; let it leave the window.
    app.clock.advance(60 * MINUTE);

    // 25 clients × 20 (the per-client limit) = 500 (the global budget) links to addresses nobody owns.
    await Promise.all(
      Array.from({ length: 25 }, async (_, i) => {
        for (let j = 0; j < 20; j++) {
          const res = await app.begin(`stranger-${i}-${j}@example.net`, { localAddress: client(i + 1) });
          assert.equal(res.location, SENT, `client ${i + 1}, send ${j + 1}`);
        }
        const extra = await app.begin(`stranger-${i}-x@example.net`, { localAddress: client(i + 1) });
        assert.equal(extra.location, RATE, "the 21st from one client");
      }),
    );
    assert.equal(count(app.db, "signin_links"), 500);

    // A brand-new address is refused while the budget is spent: sign-ups pause.
    assert.equal((await app.begin("newcomer@example.org", { localAddress: client(26) })).location, RATE);
    const api = await app.begin("newcomer@example.org", { localAddress: client(26), headers: { Accept: "application/json" } });
    assert.equal(api.status, 429);
    assert.equal(api.headers["retry-after"], "3600", "the global window (1 hour) frees room then");
    assert.deepEqual(JSON.parse(api.body), { error: "rate" });
    assert.equal(api.location, undefined);

    // The returning person still gets a link, from a new client, and it signs in.
    const browser = new CookieJar();
    const begun = await app.begin("Ann@Example.com", { localAddress: client(27), jar: browser });
    assert.equal(begun.location, SENT);
    const link = await app.linkFor("ann@example.com", 2);
    assert.equal((await app.request("GET", link, { jar: browser })).location, "/account");

    const limited = events.filter((e) => e.Kind === "rate_limited");
    assert.equal(limited.filter((e) => e.Reason === "client").length, 25);
    assert.equal(limited.filter((e) => e.Reason === "global").length, 2);
    assert.ok(limited.every((e) => e.Client?.startsWith("127.0.") === true && e.Subject !== undefined));

    // One hour after the flood, strangers are served again.
    app.clock.advance(60 * MINUTE);
    assert.equal((await app.begin("newcomer@example.org", { localAddress: client(26) })).location, SENT);
  });

  it("counts plus-tags and case as one address: the 6th of local+tag@domain in 15 minutes is refused", async (t) => {
    assert.equal(addressBucket("ann+news@example.com"), "ann@example.com");
    assert.equal(addressBucket("+x@example.com"), "+x@example.com", "a local part that is only a tag stays itself");
    const app = await startSigninApp(t);
    for (const [i, email] of [
      "ann+1@example.com",
      "ANN+2@example.com",
      "ann@example.com",
      "Ann+Shop@Example.com",
      "ann+5@EXAMPLE.com",
    ].entries()) {
      assert.equal((await app.begin(email, { localAddress: client(i + 1) })).location, SENT, email);
    }
    assert.equal((await app.begin("ann+6@example.com", { localAddress: client(9) })).location, RATE);
    const api = await app.begin("ann+7@example.com", { localAddress: client(10), headers: { Accept: "application/json" } });
    assert.equal(api.status, 429);
    assert.equal(api.headers["retry-after"], "900", "the per-address window: 15 minutes");
    assert.equal((await app.begin("bob+1@example.com", { localAddress: client(11) })).location, SENT);
    // The subject is the address as typed (normalized), tag and all; only the limit folds it.
    assert.equal(count(app.db, "signin_links", "address = ?", "ann+shop@example.com"), 1);
  });

  it("answers the per-client limit with 429 and the time until the window frees a slot", async (t) => {
    const app = await startSigninApp(t);
    for (let j = 0; j < 20; j++) {
      assert.equal((await app.begin(`c${j}@example.com`, { localAddress: client(3) })).location, SENT);
      app.clock.advance(MINUTE);
    }
    const api = await app.begin("c20@example.com", { localAddress: client(3), headers: { Accept: "application/json" } });
    assert.equal(api.status, 429);
    // The oldest send was 20 minutes ago; the hour window frees its slot in 40 minutes.
    assert.equal(api.headers["retry-after"], String(40 * 60));
    assert.equal((await app.begin("c20@example.com", { localAddress: client(4) })).location, SENT, "another client is not limited");
  });
});
