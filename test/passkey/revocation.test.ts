/*
 * A lost device ends the thief's sessions: deleting a passkey and signing
 * in with a recovery code end every other session of the subject, and
 * each step is reported as an auth event.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { newAuthenticator } from "../_support/authenticator.ts";
import { ORIGIN, enroll, pendingClient, startStack, type Client } from "./routes-stack.ts";

const ALICE = "alice@example.com";
const BOB = "bob@example.com";

async function signedIn(client: Client, address: string): Promise<Client> {
  const res = await client.signIn(address);
  assert.equal(res.headers.get("location"), "/account");
  return client;
}

describe("Passkey automatic session revocation", () => {
  it("ends every other session of the subject when a passkey is deleted", async (t) => {
    const stack = await startStack(t);
    const other = await signedIn(stack.client(), ALICE);
    const bob = await signedIn(stack.client(), BOB);
    const me = await signedIn(stack.client(), ALICE);
    const id = await enroll(me, newAuthenticator({ origin: ORIGIN }));
    assert.equal(typeof (await other.whoami()), "object", "adding a passkey ends nothing");
    const res = await me.send("POST", "/account/passkeys/delete", { form: { id } });
    assert.equal(res.status, 303);
    assert.equal(stack.keys.Enrolled(ALICE), false);
    assert.equal(await other.whoami(), 401);
    assert.equal(typeof (await me.whoami()), "object", "the session that deleted it stays");
    assert.equal(typeof (await bob.whoami()), "object", "another subject is untouched");
    const kinds = stack.events.filter((e) => e.Subject === ALICE && e.Kind !== "signed_in" && e.Kind !== "link_requested");
    assert.deepEqual(
      kinds.map((e) => [e.Kind, e.Reason, e.Count]),
      [
        ["passkey_added", undefined, undefined],
        ["passkey_removed", undefined, undefined],
        ["sessions_ended", "passkey_removed", 1],
      ],
    );
  });

  it("reports a step-up, and a passkey sign-in with its method, and ends no session for them", async (t) => {
    const stack = await startStack(t);
    const key = newAuthenticator({ origin: ORIGIN });
    const other = await signedIn(stack.client(), ALICE);
    const me = await signedIn(stack.client(), ALICE);
    await enroll(me, key);
    const begin = await me.post("/passkey/stepup/begin");
    assert.equal((await me.post("/passkey/stepup/finish", key.assert(begin.body))).status, 200);
    const pending = await pendingClient(stack, ALICE);
    const signinBegin = await pending.post("/passkey/signin/begin");
    assert.equal((await pending.post("/passkey/signin/finish", key.assert(signinBegin.body))).status, 200);
    const seen = stack.events.filter((e) => e.Kind === "step_up" || (e.Kind === "signed_in" && e.Method !== "magiclink"));
    assert.deepEqual(
      seen.map((e) => [e.Kind, e.Subject, e.Method]),
      [
        ["step_up", ALICE, "passkey"],
        ["signed_in", ALICE, "magiclink+passkey"],
      ],
    );
    assert.equal(typeof (await other.whoami()), "object");
    assert.equal(stack.events.filter((e) => e.Kind === "sessions_ended").length, 0);
  });

  it("deletes nothing and ends nothing for an unknown credential id", async (t) => {
    const stack = await startStack(t);
    const other = await signedIn(stack.client(), ALICE);
    const me = await signedIn(stack.client(), ALICE);
    await enroll(me, newAuthenticator({ origin: ORIGIN }));
    await me.send("POST", "/account/passkeys/delete", { form: { id: "not-a-credential" } });
    assert.equal(typeof (await other.whoami()), "object");
    assert.equal(stack.events.filter((e) => e.Kind === "sessions_ended").length, 0);
  });

  it("ends every other session of the subject when a recovery code signs in", async (t) => {
    const stack = await startStack(t);
    const before = await signedIn(stack.client(), ALICE);
    const me = await signedIn(stack.client(), ALICE);
    await enroll(me, newAuthenticator({ origin: ORIGIN }));
    const codes = stack.keys.RegenerateRecoveryCodes(ALICE);
    const bob = await signedIn(stack.client(), BOB);
    const recovering = await pendingClient(stack, ALICE);
    const res = await recovering.send("POST", "/passkey/signin/recovery", { form: { code: codes[0] ?? "" } });
    assert.equal(res.headers.get("location"), "/account");
    const who = await recovering.whoami();
    assert.ok(typeof who === "object" && who.Method === "magiclink+recovery");
    assert.equal(await before.whoami(), 401);
    assert.equal(await me.whoami(), 401);
    assert.equal(typeof (await bob.whoami()), "object");
    const tail = stack.events.slice(-3).map((e) => [e.Kind, e.Subject, e.Method ?? e.Reason, e.Count]);
    assert.deepEqual(tail, [
      ["recovery_code_used", ALICE, undefined, undefined],
      ["signed_in", ALICE, "magiclink+recovery", undefined],
      ["sessions_ended", ALICE, "recovery_code_used", 2],
    ]);
  });
});
