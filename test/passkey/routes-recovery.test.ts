/*
 * Recovery codes through the real stack (SPEC §3.2, §8): ten per
 * regeneration replacing the old set, each signs in once as
 * `<first>+recovery`, a wrong one redirects to `ConfirmPath?recovery=failed`
 * and keeps the pending half-session.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { RECOVERY_CODE_COUNT } from "../../lib/passkey/store.ts";
import { newAuthenticator } from "../_support/authenticator.ts";
import { ORIGIN, enrolledClient, pendingClient, startStack, type Client } from "./routes-stack.ts";

const ALICE = "alice@example.com";
const BOB = "bob@example.com";

async function regenerate(client: Client): Promise<string[]> {
  const res = await client.send("POST", "/account/recovery-codes");
  assert.equal(res.status, 200);
  const codes: unknown = await res.json();
  assert.ok(Array.isArray(codes) && codes.every((c) => typeof c === "string"));
  return codes.map(String);
}

async function useCode(client: Client, code: string): Promise<string | null> {
  const res = await client.send("POST", "/passkey/signin/recovery", { form: { code } });
  assert.equal(res.status, 303);
  return res.headers.get("location");
}

describe("RegenerateRecoveryCodes()", () => {
  it("issues 10 distinct codes and replaces the previous set", async (t) => {
    const stack = await startStack(t);
    const [client] = await enrolledClient(stack, ALICE, newAuthenticator({ origin: ORIGIN }));
    const old = await regenerate(client);
    assert.equal(old.length, RECOVERY_CODE_COUNT);
    assert.equal(new Set(old).size, 10);
    for (const code of old) assert.match(code, /^[2-9a-z]{4}-[2-9a-z]{4}-[2-9a-z]{4}-[2-9a-z]{4}$/);
    const fresh = await regenerate(client);
    assert.equal(fresh.length, 10);
    assert.equal(fresh.filter((c) => old.includes(c)).length, 0);
    assert.equal(stack.keys.RecoveryCodesRemaining(ALICE), 10);
    const pending = await pendingClient(stack, ALICE);
    assert.equal(await useCode(pending, old[0] ?? ""), "/confirm?recovery=failed", "an old code stopped working");
    assert.equal(await useCode(pending, fresh[0] ?? ""), "/account");
  });
});

describe("RegenerateRecoveryCodes(): its auth event", () => {
  it("reports recovery_codes_regenerated with the new codes, and keeps the old ones when the event cannot be recorded", async (t) => {
    let refuse = false;
    const stack = await startStack(t, {
      sink: () => {
        if (refuse) throw new Error("injected: database or disk is full");
      },
    });
    const [client] = await enrolledClient(stack, ALICE, newAuthenticator({ origin: ORIGIN }));
    const old = await regenerate(client);
    const reported = stack.events.filter((e) => e.Kind === "recovery_codes_regenerated");
    assert.deepEqual(
      reported.map((e) => ({ Subject: e.Subject, Client: e.Client })),
      [{ Subject: ALICE, Client: "127.0.0.1" }],
      "the person and where the request came from; never a code",
    );
    assert.ok(!JSON.stringify(reported).includes(old[0] ?? "-"));
    refuse = true;
    assert.equal((await client.send("POST", "/account/recovery-codes")).status, 500);
    refuse = false;
    const pending = await pendingClient(stack, ALICE);
    assert.equal(await useCode(pending, old[0] ?? ""), "/account", "no new set without its event: the old codes still work");
  });
});

describe("SignInRecovery()", () => {
  it("signs in once with a code as magiclink+recovery and refuses it the second time", async (t) => {
    const stack = await startStack(t);
    const [owner] = await enrolledClient(stack, ALICE, newAuthenticator({ origin: ORIGIN }));
    const [code = ""] = await regenerate(owner);
    const client = await pendingClient(stack, ALICE);
    assert.equal(
      await useCode(client, code.toUpperCase().replace("-", " ").replace("-", "")),
      "/account",
      "case, spaces and dashes do not matter",
    );
    assert.ok(client.lastSetCookie.some((c) => /^framework_pending=;.*Max-Age=0/.test(c)));
    assert.ok(!client.cookies.has("framework_pending"));
    const who = await client.whoami();
    assert.ok(typeof who === "object");
    assert.deepEqual([who.Subject, who.Method], [ALICE, "magiclink+recovery"]);
    assert.equal(stack.keys.RecoveryCodesRemaining(ALICE), 9);
    const again = await pendingClient(stack, ALICE);
    assert.equal(await useCode(again, code), "/confirm?recovery=failed");
    assert.ok(!again.cookies.has("framework_session"));
  });

  it("keeps the pending half-session after a wrong code: a passkey or another code still works", async (t) => {
    const stack = await startStack(t);
    const key = newAuthenticator({ origin: ORIGIN });
    const [owner] = await enrolledClient(stack, ALICE, key);
    const codes = await regenerate(owner);
    for (const next of ["code", "passkey"] as const) {
      const client = await pendingClient(stack, ALICE);
      const token = client.cookies.get("framework_pending");
      for (const wrong of ["", "zzzz-zzzz-zzzz-zzzz", "not a code at all"])
        assert.equal(await useCode(client, wrong), "/confirm?recovery=failed");
      assert.equal(client.cookies.get("framework_pending"), token, "the wrong code did not clear the cookie");
      assert.equal(await client.whoami(), 401);
      if (next === "code") {
        assert.equal(await useCode(client, codes[1] ?? ""), "/account");
      } else {
        const begin = await client.post("/passkey/signin/begin");
        assert.equal((await client.post("/passkey/signin/finish", key.assert(begin.body))).status, 200);
      }
      const who = await client.whoami();
      assert.ok(typeof who === "object");
      assert.equal(who.Method, next === "code" ? "magiclink+recovery" : "magiclink+passkey");
    }
    assert.equal(stack.keys.RecoveryCodesRemaining(ALICE), 9, "wrong codes burned nothing");
  });

  it("refuses another account's code", async (t) => {
    const stack = await startStack(t);
    await enrolledClient(stack, ALICE, newAuthenticator({ origin: ORIGIN }));
    const [bob] = await enrolledClient(stack, BOB, newAuthenticator({ origin: ORIGIN }));
    const [bobCode = ""] = await regenerate(bob);
    const alice = await pendingClient(stack, ALICE);
    assert.equal(await useCode(alice, bobCode), "/confirm?recovery=failed");
    assert.equal(stack.keys.RecoveryCodesRemaining(BOB), 10);
  });

  it("needs a live pending half-session: a session cookie or nothing goes to the sign-in page", async (t) => {
    const stack = await startStack(t);
    const [owner] = await enrolledClient(stack, ALICE, newAuthenticator({ origin: ORIGIN }));
    const [code = ""] = await regenerate(owner);
    assert.equal(await useCode(owner, code), "/signin?err=expired");
    assert.equal(await useCode(stack.client(), code), "/signin?err=expired");
    assert.equal(stack.keys.RecoveryCodesRemaining(ALICE), 10, "nothing was burned");
  });

  it("is a plain form POST behind the same CSRF protection", async (t) => {
    const stack = await startStack(t);
    const [owner] = await enrolledClient(stack, ALICE, newAuthenticator({ origin: ORIGIN }));
    const [code = ""] = await regenerate(owner);
    const client = await pendingClient(stack, ALICE);
    const res = await client.send("POST", "/passkey/signin/recovery", { form: { code } }, { "Sec-Fetch-Site": "cross-site" });
    assert.equal(res.status, 403);
    assert.equal(stack.keys.RecoveryCodesRemaining(ALICE), 10);
  });
});
