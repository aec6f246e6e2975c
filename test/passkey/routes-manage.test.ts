/*
 * Passkey management forms through the real stack: Rename and Delete touch
 * only the session subject's own passkeys; Delete needs a fresh session.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { DEFAULT_FRESH_FOR } from "../../lib/passkey/config.ts";
import { newAuthenticator } from "../_support/authenticator.ts";
import { ORIGIN, enrolledClient, startStack } from "./routes-stack.ts";

const ALICE = "alice@example.com";
const BOB = "bob@example.com";

describe("Rename()", () => {
  it("renames the subject's own passkey and no one else's", async (t) => {
    const stack = await startStack(t);
    const [alice, aliceID] = await enrolledClient(stack, ALICE, newAuthenticator({ origin: ORIGIN }));
    const [, bobID] = await enrolledClient(stack, BOB, newAuthenticator({ origin: ORIGIN }));
    const bobName = stack.keys.Credentials(BOB)[0]?.name;
    const own = await alice.send("POST", "/account/passkeys/rename", { form: { id: aliceID, name: "  Laptop  " } });
    assert.equal(own.status, 303);
    assert.equal(own.headers.get("location"), "/account");
    assert.equal(stack.keys.Credentials(ALICE)[0]?.name, "Laptop");
    const other = await alice.send("POST", "/account/passkeys/rename", { form: { id: bobID, name: "mine now" } });
    assert.equal(other.status, 303);
    assert.equal(stack.keys.Credentials(BOB)[0]?.name, bobName);
  });

  it("needs a session", async (t) => {
    const stack = await startStack(t);
    const [, id] = await enrolledClient(stack, ALICE, newAuthenticator({ origin: ORIGIN }));
    const before = stack.keys.Credentials(ALICE)[0]?.name;
    const res = await stack.client().send("POST", "/account/passkeys/rename", { form: { id, name: "x" } });
    assert.equal(res.status, 401);
    assert.equal(stack.keys.Credentials(ALICE)[0]?.name, before);
  });

  it("refuses a name with control characters with a 400", async (t) => {
    const stack = await startStack(t);
    const [alice, id] = await enrolledClient(stack, ALICE, newAuthenticator({ origin: ORIGIN }));
    const before = stack.keys.Credentials(ALICE)[0]?.name;
    const res = await alice.send("POST", "/account/passkeys/rename", { form: { id, name: "a\u0007b" } });
    assert.equal(res.status, 400);
    assert.equal(stack.keys.Credentials(ALICE)[0]?.name, before);
  });
});

describe("Delete()", () => {
  it("deletes the subject's own passkey with a fresh session", async (t) => {
    const stack = await startStack(t);
    const [alice, id] = await enrolledClient(stack, ALICE, newAuthenticator({ origin: ORIGIN }));
    const res = await alice.send("POST", "/account/passkeys/delete", { form: { id } });
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/account");
    assert.equal(stack.keys.Enrolled(ALICE), false);
  });

  it("deletes nothing when its auth event cannot be recorded (the sink throws inside the removal's transaction)", async (t) => {
    let refusing = false;
    const sink = (e: { Kind: string }): void => {
      if (refusing && e.Kind === "passkey_removed") throw new Error("injected: database or disk is full");
    };
    const stack = await startStack(t, { sink });
    const [alice, id] = await enrolledClient(stack, ALICE, newAuthenticator({ origin: ORIGIN }));
    refusing = true;
    const res = await alice.send("POST", "/account/passkeys/delete", { form: { id } });
    assert.equal(res.status, 500);
    assert.equal(stack.keys.Enrolled(ALICE), true, "no removal without its event");
  });

  it("leaves another subject's passkey alone", async (t) => {
    const stack = await startStack(t);
    const [alice] = await enrolledClient(stack, ALICE, newAuthenticator({ origin: ORIGIN }));
    const [, bobID] = await enrolledClient(stack, BOB, newAuthenticator({ origin: ORIGIN }));
    await alice.send("POST", "/account/passkeys/delete", { form: { id: bobID } });
    assert.deepEqual(
      stack.keys.Credentials(BOB).map((c) => c.id),
      [bobID],
    );
    assert.equal(stack.keys.Credentials(ALICE).length, 1);
  });

  it("sends a stale session to StalePath with next, deleting nothing; a step-up makes it fresh", async (t) => {
    const stack = await startStack(t);
    const key = newAuthenticator({ origin: ORIGIN });
    const [alice, id] = await enrolledClient(stack, ALICE, key);
    stack.clock.advance(DEFAULT_FRESH_FOR + 1);
    const stale = await alice.send("POST", "/account/passkeys/delete", { form: { id } });
    assert.equal(stale.status, 303);
    assert.equal(stale.headers.get("location"), "/stepup?next=%2Faccount");
    assert.ok(stack.keys.Enrolled(ALICE));
    const begin = await alice.post("/passkey/stepup/begin");
    assert.equal((await alice.post("/passkey/stepup/finish", key.assert(begin.body))).status, 200);
    const fresh = await alice.send("POST", "/account/passkeys/delete", { form: { id } });
    assert.equal(fresh.headers.get("location"), "/account");
    assert.equal(stack.keys.Enrolled(ALICE), false);
  });

  it("accepts a session exactly at the freshness limit", async (t) => {
    const stack = await startStack(t);
    const [alice, id] = await enrolledClient(stack, ALICE, newAuthenticator({ origin: ORIGIN }));
    stack.clock.advance(DEFAULT_FRESH_FOR);
    await alice.send("POST", "/account/passkeys/delete", { form: { id } });
    assert.equal(stack.keys.Enrolled(ALICE), false);
  });
});
