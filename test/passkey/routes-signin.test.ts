/*
 * The passkey sign-in pair through the real stack: a live pending
 * half-session is the only key (SPEC §5.5), challenges and pending rows
 * expire and are spent once (§3.2), and the minted session is
 * `<first>+passkey` (§5.7).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { CHALLENGE_TTL, PENDING_TTL } from "../../lib/passkey/store.ts";
import { newAuthenticator } from "../_support/authenticator.ts";
import { ORIGIN, enrolledClient, errorOf, pendingClient, startStack, type Stack } from "./routes-stack.ts";

const ALICE = "alice@example.com";
const BOB = "bob@example.com";

async function aliceWithKey(stack: Stack): Promise<ReturnType<typeof newAuthenticator>> {
  const authenticator = newAuthenticator({ origin: ORIGIN });
  await enrolledClient(stack, ALICE, authenticator);
  return authenticator;
}

describe("SignInBegin() and SignInFinish(): access (SPEC §5.5)", () => {
  it("refuse a request with no cookie at all", async (t) => {
    const stack = await startStack(t);
    const key = await aliceWithKey(stack);
    const stranger = stack.client();
    const begin = await stranger.post("/passkey/signin/begin");
    assert.equal(begin.status, 401);
    assert.equal(errorOf(begin.body), "no_pending_signin");
    const finish = await stranger.post("/passkey/signin/finish", key.assert({ challenge: "AAAAAAAAAAAAAAAAAAAAAA" }));
    assert.equal(finish.status, 401);
  });

  it("refuse a full session without a pending half-session", async (t) => {
    const stack = await startStack(t);
    const [client] = await enrolledClient(stack, ALICE, newAuthenticator({ origin: ORIGIN }));
    assert.ok(client.cookies.has("framework_session"));
    assert.equal((await client.post("/passkey/signin/begin")).status, 401);
    assert.equal((await client.post("/passkey/signin/finish", {})).status, 401);
  });

  it("open nothing for a valid assertion by a known credential id alone", async (t) => {
    const stack = await startStack(t);
    const key = await aliceWithKey(stack);
    const pending = await pendingClient(stack, ALICE);
    const options = (await pending.post("/passkey/signin/begin")).body;
    const assertion = key.assert(options);
    const stranger = stack.client();
    const finish = await stranger.post("/passkey/signin/finish", assertion);
    assert.equal(finish.status, 401);
    assert.ok(!stranger.cookies.has("framework_session"));
    assert.equal(await stranger.whoami(), 401);
  });

  it("refuse a forged pending cookie", async (t) => {
    const stack = await startStack(t);
    await aliceWithKey(stack);
    const forger = stack.client();
    forger.cookies.set("framework_pending", "A".repeat(43));
    assert.equal((await forger.post("/passkey/signin/begin")).status, 401);
  });

  it("need a challenge from begin: an assertion for a made-up challenge is refused", async (t) => {
    const stack = await startStack(t);
    const key = await aliceWithKey(stack);
    const pending = await pendingClient(stack, ALICE);
    const finish = await pending.post("/passkey/signin/finish", key.assert({ challenge: "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" }));
    assert.equal(finish.status, 400);
    assert.equal(errorOf(finish.body), "challenge_expired");
  });
});

describe("SignInFinish()", () => {
  it("mints magiclink+passkey, clears the pending cookie and consumes the pending row", async (t) => {
    const stack = await startStack(t);
    const key = await aliceWithKey(stack);
    const client = await pendingClient(stack, ALICE);
    const pendingToken = client.cookies.get("framework_pending");
    const begin = await client.post("/passkey/signin/begin");
    assert.equal(begin.status, 200);
    const finish = await client.post("/passkey/signin/finish", key.assert(begin.body));
    assert.equal(finish.status, 200);
    assert.deepEqual(finish.body, { location: "/account" });
    assert.ok(
      client.lastSetCookie.some((c) => /^framework_pending=;.*Max-Age=0/.test(c)),
      client.lastSetCookie.join(" | "),
    );
    assert.ok(!client.cookies.has("framework_pending"));
    const who = await client.whoami();
    assert.ok(typeof who === "object");
    assert.deepEqual([who.Subject, who.Method, who.AuthTime], [ALICE, "magiclink+passkey", stack.clock.now().getTime()]);
    const replay = stack.client();
    replay.cookies.set("framework_pending", pendingToken ?? "");
    assert.equal((await replay.post("/passkey/signin/begin")).status, 401, "the pending half-session is spent");
  });

  it("spends a challenge once: the same finish twice mints one session", async (t) => {
    const stack = await startStack(t);
    const key = await aliceWithKey(stack);
    const client = await pendingClient(stack, ALICE);
    const begin = await client.post("/passkey/signin/begin");
    const assertion = key.assert(begin.body);
    const pendingToken = client.cookies.get("framework_pending") ?? "";
    assert.equal((await client.post("/passkey/signin/finish", assertion)).status, 200);
    const twin = stack.client();
    twin.cookies.set("framework_pending", pendingToken);
    const again = await twin.post("/passkey/signin/finish", assertion);
    assert.equal(again.status, 401);
    assert.ok(!twin.cookies.has("framework_session"));
  });

  it("refuses a replayed assertion against a new challenge", async (t) => {
    const stack = await startStack(t);
    const key = await aliceWithKey(stack);
    const client = await pendingClient(stack, ALICE);
    const first = key.assert((await client.post("/passkey/signin/begin")).body);
    await client.post("/passkey/signin/begin");
    const replayed = await client.post("/passkey/signin/finish", first);
    assert.equal(replayed.status, 400);
    assert.equal(errorOf(replayed.body), "ERR_PASSKEY_CHALLENGE");
    assert.ok(!client.cookies.has("framework_session"));
  });

  it("refuses an expired challenge (2 minutes) and keeps the pending half-session", async (t) => {
    const stack = await startStack(t);
    const key = await aliceWithKey(stack);
    const client = await pendingClient(stack, ALICE);
    const stale = await client.post("/passkey/signin/begin");
    stack.clock.advance(CHALLENGE_TTL);
    const late = await client.post("/passkey/signin/finish", key.assert(stale.body));
    assert.equal(late.status, 400);
    assert.equal(errorOf(late.body), "challenge_expired");
    const begin = await client.post("/passkey/signin/begin");
    assert.equal(begin.status, 200);
    assert.equal((await client.post("/passkey/signin/finish", key.assert(begin.body))).status, 200);
  });

  it("refuses everything once the pending half-session is 5 minutes old", async (t) => {
    const stack = await startStack(t);
    const key = await aliceWithKey(stack);
    const client = await pendingClient(stack, ALICE);
    stack.clock.advance(PENDING_TTL - CHALLENGE_TTL / 2);
    const begin = await client.post("/passkey/signin/begin");
    assert.equal(begin.status, 200, "still live just before 5 minutes");
    stack.clock.advance(CHALLENGE_TTL / 2);
    const finish = await client.post("/passkey/signin/finish", key.assert(begin.body));
    assert.equal(finish.status, 401);
    assert.equal(errorOf(finish.body), "no_pending_signin");
    assert.equal((await client.post("/passkey/signin/begin")).status, 401);
    const recovery = await client.send("POST", "/passkey/signin/recovery", { form: { code: "whatever" } });
    assert.equal(recovery.headers.get("location"), "/signin?err=expired");
  });

  it("refuses a signature counter that does not move forward", async (t) => {
    const stack = await startStack(t);
    const key = await aliceWithKey(stack);
    const first = await pendingClient(stack, ALICE);
    const ok = key.assert((await first.post("/passkey/signin/begin")).body, undefined, { counter: 5 });
    assert.equal((await first.post("/passkey/signin/finish", ok)).status, 200);
    for (const counter of [5, 4]) {
      const client = await pendingClient(stack, ALICE);
      const finish = await client.post(
        "/passkey/signin/finish",
        key.assert((await client.post("/passkey/signin/begin")).body, undefined, { counter }),
      );
      assert.equal(finish.status, 400, `counter ${counter}`);
      assert.equal(errorOf(finish.body), "ERR_PASSKEY_SIGN_COUNT");
      assert.ok(!client.cookies.has("framework_session"));
    }
    const client = await pendingClient(stack, ALICE);
    const next = key.assert((await client.post("/passkey/signin/begin")).body, undefined, { counter: 6 });
    assert.equal((await client.post("/passkey/signin/finish", next)).status, 200);
  });

  it("refuses another subject's credential", async (t) => {
    const stack = await startStack(t);
    await aliceWithKey(stack);
    const bobKey = newAuthenticator({ origin: ORIGIN });
    await enrolledClient(stack, BOB, bobKey);
    const client = await pendingClient(stack, ALICE);
    const begin = await client.post("/passkey/signin/begin");
    const finish = await client.post("/passkey/signin/finish", bobKey.assert(begin.body));
    assert.equal(finish.status, 400);
    assert.equal(errorOf(finish.body), "ERR_PASSKEY_CREDENTIAL_OWNER");
    assert.ok(!client.cookies.has("framework_session"));
  });

  it("refuses a user handle that is not the credential's", async (t) => {
    const stack = await startStack(t);
    const key = await aliceWithKey(stack);
    const client = await pendingClient(stack, ALICE);
    const begin = await client.post("/passkey/signin/begin");
    const finish = await client.post("/passkey/signin/finish", key.assert(begin.body, undefined, { userHandle: "AAAA" }));
    assert.equal(finish.status, 400);
    assert.equal(errorOf(finish.body), "ERR_PASSKEY_USER_HANDLE");
  });

  it("accepts an assertion without a user handle (non-discoverable use)", async (t) => {
    const stack = await startStack(t);
    const key = await aliceWithKey(stack);
    const client = await pendingClient(stack, ALICE);
    const begin = await client.post("/passkey/signin/begin");
    assert.equal((await client.post("/passkey/signin/finish", key.assert(begin.body, undefined, { userHandle: null }))).status, 200);
  });
});

describe("StepUpFinish() and SignInFinish(): one assertion check", () => {
  // Both consume their ceremony's challenge, verify the assertion for the subject and answer a refusal the same way.
  for (const ceremony of ["stepup", "signin"]) {
    it(`${ceremony}: another subject's credential is 400 {error, step}; the spent challenge is then challenge_expired`, async (t) => {
      const stack = await startStack(t);
      const aliceKey = await aliceWithKey(stack);
      const [bob] = await enrolledClient(stack, BOB, newAuthenticator({ origin: ORIGIN }));
      const client = ceremony === "stepup" ? bob : await pendingClient(stack, BOB);
      const begin = await client.post(`/passkey/${ceremony}/begin`);
      assert.equal(begin.status, 200);
      const assertion = aliceKey.assert(begin.body);
      const refused = await client.post(`/passkey/${ceremony}/finish`, assertion);
      assert.equal(refused.status, 400);
      assert.deepEqual(refused.body, { error: "ERR_PASSKEY_CREDENTIAL_OWNER", step: "7.2 step 6: credential owner" });
      const again = await client.post(`/passkey/${ceremony}/finish`, assertion);
      assert.equal(again.status, 400);
      assert.deepEqual(again.body, { error: "challenge_expired" });
    });
  }
});
