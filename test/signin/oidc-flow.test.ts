import assert from "node:assert/strict";
import { describe, it, type TestContext } from "node:test";
import { InboxProvider } from "../../lib/signin/oidc/provider.ts";
import { PENDING_BLOB_TTL } from "../../lib/signin/oidc/pending.ts";
import type { CompleteResult } from "../../lib/signin/oidc/options.ts";
import { captureLog, type CapturedLog, type LogLine } from "../_support/http.ts";
import { cookiePair } from "../_support/http-client.ts";
import { startOIDCProvider, type TestIDTokenAlg, type TestProvider } from "../_support/oidc-provider.ts";

const ORIGIN = "https://app.example";
const ALICE = "alice@example.com";
const BOB = "bob@example.com";
const UNVERIFIED = "carol@example.com";

interface Setup {
  idp: TestProvider;
  provider: InboxProvider;
  log: CapturedLog;
  /** Moves the provider's clock forward by this many ms. */
  advance(ms: number): void;
}

async function setup(t: TestContext, idTokenAlg: TestIDTokenAlg = "RS256"): Promise<Setup> {
  const idp = await startOIDCProvider({
    clientOrigin: ORIGIN,
    accounts: { [ALICE]: { email_verified: true }, [BOB]: { email_verified: true }, [UNVERIFIED]: { email_verified: false } },
    claimed: [ALICE, BOB, UNVERIFIED],
    idTokenAlg,
  });
  t.after(() => idp.close());
  let offset = 0;
  const log = captureLog();
  const provider = new InboxProvider({
    Issuer: idp.issuer,
    ClientID: ORIGIN,
    RedirectURI: `${ORIGIN}/auth/callback`,
    InstanceKey: "instance-key-for-tests-0123456789",
    Clock: { now: () => new Date(Date.now() + offset) },
    Logger: log.logger,
  });
  return { idp, provider, log, advance: (ms) => (offset += ms) };
}

/** Begins for `address` and drives the provider; returns the callback query and the blob cookie. */
async function flow(s: Setup, address: string, login?: string): Promise<{ query: URLSearchParams; cookie: string }> {
  const begun = await s.provider.begin(address);
  const callback = await s.idp.authorize(begun.location, login === undefined ? {} : { login });
  return { query: callback.searchParams, cookie: cookiePair(begun.cookie) };
}

function assertRefused(result: CompleteResult, reason: string, lines: readonly LogLine[]): void {
  assert.equal(result.ok, false);
  if (result.ok) return;
  assert.equal(result.reason, reason);
  const line = lines.find((l) => l["ref"] === result.ref);
  assert.ok(line, "the refusal is logged under its reference");
  assert.equal(line["level"], "warn");
  assert.equal(line["reason"], reason);
}

describe("InboxProvider.complete() against oidc-provider", () => {
  for (const alg of ["RS256", "ES256", "EdDSA"] as const) {
    it(`signs in a claimed address with an ${alg} ID token`, async (t) => {
      const s = await setup(t, alg);
      assert.equal(await s.provider.isClaimed(ALICE), true);
      const begun = await s.provider.begin(ALICE);
      const auth = new URL(begun.location);
      assert.equal(auth.origin, s.idp.issuer);
      assert.equal(auth.searchParams.get("client_id"), ORIGIN);
      assert.equal(auth.searchParams.get("redirect_uri"), `${ORIGIN}/auth/callback`);
      assert.equal(auth.searchParams.get("response_type"), "code");
      assert.equal(auth.searchParams.get("scope"), "openid email");
      assert.equal(auth.searchParams.get("code_challenge_method"), "S256");
      assert.equal(auth.searchParams.get("login_hint"), ALICE);
      // OIDC Core §5.5.1: auth_time is asked for by the claims parameter.
      assert.deepEqual(JSON.parse(auth.searchParams.get("claims") ?? ""), { id_token: { auth_time: { essential: true } } });
      const loginFrom = Math.floor(Date.now() / 1000) * 1000;
      const callback = await s.idp.authorize(begun.location);
      assert.equal(callback.searchParams.get("iss"), s.idp.issuer);
      const result = await s.provider.complete(callback.searchParams, cookiePair(begun.cookie));
      assert.ok(result.ok);
      assert.equal(result.address, ALICE);
      // The provider's auth_time: the login the provider just performed, not a time of ours.
      assert.ok(result.authTime instanceof Date, "auth_time is read from the ID token");
      assert.ok(result.authTime.getTime() >= loginFrom && result.authTime.getTime() <= Date.now(), result.authTime.toISOString());
      assert.equal(s.log.lines().length, 0);
    });
  }

  it("refuses a second use of the same code", async (t) => {
    const s = await setup(t);
    const { query, cookie } = await flow(s, ALICE);
    assert.equal((await s.provider.complete(query, cookie)).ok, true);
    assertRefused(await s.provider.complete(query, cookie), "token_exchange", s.log.lines());
  });

  it("refuses a callback without the blob cookie", async (t) => {
    const s = await setup(t);
    const { query } = await flow(s, ALICE);
    assertRefused(await s.provider.complete(query, undefined), "no_blob", s.log.lines());
    assertRefused(await s.provider.complete(query, "other=1"), "no_blob", s.log.lines());
  });

  it("refuses a tampered blob", async (t) => {
    const s = await setup(t);
    const { query, cookie } = await flow(s, ALICE);
    const eq = cookie.indexOf("=");
    const value = cookie.slice(eq + 1);
    const flipped = (value[5] === "A" ? "B" : "A") + "";
    const tampered = `${cookie.slice(0, eq + 1)}${value.slice(0, 5)}${flipped}${value.slice(6)}`;
    assertRefused(await s.provider.complete(query, tampered), "bad_blob", s.log.lines());
  });

  it("refuses a blob sealed under another InstanceKey", async (t) => {
    const s = await setup(t);
    const other = new InboxProvider({
      Issuer: s.idp.issuer,
      ClientID: ORIGIN,
      RedirectURI: `${ORIGIN}/auth/callback`,
      InstanceKey: "another-instance-key-0123456789abcdef",
    });
    const begun = await other.begin(ALICE);
    const callback = await s.idp.authorize(begun.location);
    assertRefused(await s.provider.complete(callback.searchParams, cookiePair(begun.cookie)), "bad_blob", s.log.lines());
  });

  it("refuses an expired blob", async (t) => {
    const s = await setup(t);
    const { query, cookie } = await flow(s, ALICE);
    s.advance(PENDING_BLOB_TTL);
    assertRefused(await s.provider.complete(query, cookie), "expired", s.log.lines());
  });

  it("refuses a wrong or repeated state", async (t) => {
    const s = await setup(t);
    const { query, cookie } = await flow(s, ALICE);
    const wrong = new URLSearchParams(query);
    wrong.set("state", "not-the-state");
    assertRefused(await s.provider.complete(wrong, cookie), "state", s.log.lines());
    const repeated = new URLSearchParams(query);
    repeated.append("state", query.get("state") ?? "");
    assertRefused(await s.provider.complete(repeated, cookie), "state", s.log.lines());
  });

  it("refuses a wrong iss, and a missing one since the provider advertises it", async (t) => {
    const s = await setup(t);
    const { query, cookie } = await flow(s, ALICE);
    const wrong = new URLSearchParams(query);
    wrong.set("iss", "https://evil.example");
    assertRefused(await s.provider.complete(wrong, cookie), "iss", s.log.lines());
    const missing = new URLSearchParams(query);
    missing.delete("iss");
    assertRefused(await s.provider.complete(missing, cookie), "iss", s.log.lines());
    // The code was never spent: the untouched callback still completes.
    const result = await s.provider.complete(query, cookie);
    assert.equal(result.ok && result.address, ALICE);
  });

  it("refuses an ID token for another address", async (t) => {
    const s = await setup(t);
    const { query, cookie } = await flow(s, ALICE, BOB);
    assertRefused(await s.provider.complete(query, cookie), "email_mismatch", s.log.lines());
  });

  it("refuses an address whose email is not verified", async (t) => {
    const s = await setup(t);
    const { query, cookie } = await flow(s, UNVERIFIED);
    assertRefused(await s.provider.complete(query, cookie), "email_unverified", s.log.lines());
  });

  it("refuses when the user denies (error=access_denied)", async (t) => {
    const s = await setup(t);
    const begun = await s.provider.begin(ALICE);
    const callback = await s.idp.authorize(begun.location, { deny: true });
    assert.equal(callback.searchParams.get("error"), "access_denied");
    const result = await s.provider.complete(callback.searchParams, cookiePair(begun.cookie));
    assertRefused(result, "provider_error", s.log.lines());
    assert.equal(s.log.lines().at(-1)?.["detail"], "access_denied");
  });

  it("refuses when the provider is down at the callback", async (t) => {
    const s = await setup(t);
    const { query, cookie } = await flow(s, ALICE);
    await s.idp.close();
    assertRefused(await s.provider.complete(query, cookie), "provider_down", s.log.lines());
  });

  it("logs refusals without the code, state or blob", async (t) => {
    const s = await setup(t);
    const { query, cookie } = await flow(s, ALICE, BOB);
    await s.provider.complete(query, cookie);
    const logged = JSON.stringify(s.log.lines());
    for (const secret of [query.get("code"), query.get("state"), cookie.split("=")[1]]) {
      assert.ok(secret !== null && secret !== undefined && !logged.includes(secret));
    }
  });
});
