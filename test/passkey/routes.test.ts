/*
 * The passkey component through the real stack (routes-stack.ts): Gate,
 * the register and step-up routes, and the access rules of SPEC §5.5–5.6.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { CHALLENGE_TTL } from "../../lib/passkey/store.ts";
import { DEFAULT_ATTESTATION_CONVEYANCE } from "../../lib/passkey/options.ts";
import { DEFAULT_FRESH_FOR } from "../../lib/passkey/config.ts";
import { newAuthenticator } from "../_support/authenticator.ts";
import { ORIGIN, enroll, enrolledClient, errorOf, startStack } from "./routes-stack.ts";

const ALICE = "alice@example.com";
const BOB = "bob@example.com";
const STALE = 10 * 60 * 1000;

describe("Gate()", () => {
  it("lets an account without a passkey sign in to a session", async (t) => {
    const stack = await startStack(t);
    const client = stack.client();
    const res = await client.signIn(ALICE);
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/account");
    assert.ok(!client.cookies.has("framework_pending"));
    const who = await client.whoami();
    assert.ok(typeof who === "object");
    assert.equal(who.Subject, ALICE);
    assert.equal(who.Method, "magiclink");
  });

  it("gives an enrolled account a pending cookie and /confirm, not a session", async (t) => {
    const stack = await startStack(t);
    await enrolledClient(stack, ALICE, newAuthenticator({ origin: ORIGIN }));
    const client = stack.client();
    const res = await client.signIn(ALICE);
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/confirm");
    assert.equal(client.lastSetCookie.length, 1, "only the pending cookie is set");
    const cookie = client.lastSetCookie[0] ?? "";
    assert.match(cookie, /^framework_pending=[A-Za-z0-9_-]{20,};/);
    const attrs = cookie
      .split(";")
      .slice(1)
      .map((a) => a.trim());
    for (const want of ["HttpOnly", "SameSite=Lax", "Path=/", "Max-Age=300"]) assert.ok(attrs.includes(want), `${want} in ${cookie}`);
    assert.ok(!client.cookies.has("framework_session"));
    assert.equal(await client.whoami(), 401);
  });
});

describe("RegisterBegin()", () => {
  it("answers creation options with every field the browser needs", async (t) => {
    const stack = await startStack(t);
    const client = stack.client();
    await client.signIn(ALICE);
    const { status, body } = await client.post("/passkey/register/begin");
    assert.equal(status, 200);
    assert.ok(typeof body === "object" && body !== null);
    const o = new Map(Object.entries(body));
    assert.match(String(o.get("challenge")), /^[A-Za-z0-9_-]{43}$/, "32 random bytes, base64url");
    assert.deepEqual(o.get("rp"), { id: "localhost", name: "localhost" });
    const user = o.get("user");
    assert.ok(typeof user === "object" && user !== null && "id" in user && "name" in user);
    assert.equal(user.name, ALICE);
    assert.match(String(user.id), /^[A-Za-z0-9_-]{43}$/);
    assert.ok(!String(user.id).includes(Buffer.from(ALICE).toString("base64url")), "the user handle carries no address");
    assert.deepEqual(
      o.get("pubKeyCredParams"),
      [-8, -7, -257].map((alg) => ({ type: "public-key", alg })),
    );
    assert.equal(o.get("timeout"), CHALLENGE_TTL);
    assert.deepEqual(o.get("excludeCredentials"), []);
    assert.deepEqual(o.get("authenticatorSelection"), {
      residentKey: "preferred",
      requireResidentKey: false,
      userVerification: "preferred",
    });
    assert.equal(o.get("attestation"), DEFAULT_ATTESTATION_CONVEYANCE);
    assert.equal(DEFAULT_ATTESTATION_CONVEYANCE, "none");
  });

  it("lists existing passkeys in excludeCredentials and keeps one user handle", async (t) => {
    const stack = await startStack(t);
    const [client, id] = await enrolledClient(stack, ALICE, newAuthenticator({ origin: ORIGIN }));
    const first = stack.keys.Credentials(ALICE)[0];
    const { body } = await client.post("/passkey/register/begin");
    assert.ok(typeof body === "object" && body !== null && "excludeCredentials" in body && "user" in body);
    assert.deepEqual(body.excludeCredentials, [{ type: "public-key", id, transports: ["internal"] }]);
    assert.deepEqual(body.user, { id: Buffer.from(first?.userHandle ?? []).toString("base64url"), name: ALICE, displayName: ALICE });
  });

  it("registers ES256 and Ed25519 passkeys, both usable", async (t) => {
    const stack = await startStack(t);
    const client = stack.client();
    await client.signIn(ALICE);
    for (const algorithm of ["ES256", "Ed25519"] as const) {
      const authenticator = newAuthenticator({ origin: ORIGIN, algorithm });
      const id = await enroll(client, authenticator);
      const saved = stack.keys.Credentials(ALICE).find((c) => c.id === id);
      assert.equal(saved?.algorithm, algorithm === "ES256" ? -7 : -8);
      const begin = await client.post("/passkey/stepup/begin");
      const finish = await client.post("/passkey/stepup/finish", authenticator.assert(begin.body, id));
      assert.equal(finish.status, 200, `${algorithm} step-up: ${JSON.stringify(finish.body)}`);
    }
    assert.equal(stack.keys.Credentials(ALICE).length, 2);
    assert.ok(stack.keys.Enrolled(ALICE));
  });
});

describe("register and step-up routes: access (SPEC §5.5)", () => {
  const routes = ["/passkey/register/begin", "/passkey/register/finish", "/passkey/stepup/begin", "/passkey/stepup/finish"];

  it("refuse a request without a session with 401", async (t) => {
    const stack = await startStack(t);
    for (const path of routes) {
      const { status, body } = await stack.client().post(path);
      assert.equal(status, 401, path);
      assert.equal(errorOf(body), "unauthenticated", path);
    }
  });

  it("refuse a pending half-session alone", async (t) => {
    const stack = await startStack(t);
    await enrolledClient(stack, ALICE, newAuthenticator({ origin: ORIGIN }));
    const pending = stack.client();
    await pending.signIn(ALICE);
    assert.ok(pending.cookies.has("framework_pending"));
    for (const path of routes) assert.equal((await pending.post(path)).status, 401, path);
  });

  it("accept a stale session for step-up and register begin, but refuse register finish with 403 (SPEC §4.2)", async (t) => {
    const stack = await startStack(t);
    const authenticator = newAuthenticator({ origin: ORIGIN });
    const [client] = await enrolledClient(stack, ALICE, authenticator);
    stack.clock.advance(STALE);
    const attacker = newAuthenticator({ origin: ORIGIN });
    const register = await client.post("/passkey/register/begin");
    assert.equal(register.status, 200, "register begin stays stale-allowed");
    const refused = await client.post("/passkey/register/finish", attacker.register(register.body));
    assert.equal(refused.status, 403);
    assert.deepEqual(refused.body, { error: "stale_session" });
    assert.equal(stack.keys.Credentials(ALICE).length, 1, "a stale session adds no passkey");
    const begin = await client.post("/passkey/stepup/begin");
    assert.equal(begin.status, 200);
    assert.equal((await client.post("/passkey/stepup/finish", authenticator.assert(begin.body))).status, 200);
    await enroll(client, attacker);
    assert.equal(stack.keys.Credentials(ALICE).length, 2, "after a step-up the session is fresh and may register");
  });

  it("let a stolen stale cookie neither register a passkey nor, through one, delete the owner's", async (t) => {
    const stack = await startStack(t);
    const [owner, id] = await enrolledClient(stack, ALICE, newAuthenticator({ origin: ORIGIN }));
    stack.clock.advance(STALE);
    const thief = stack.client();
    thief.cookies.set("framework_session", owner.cookies.get("framework_session") ?? "");
    const own = newAuthenticator({ origin: ORIGIN });
    const begin = await thief.post("/passkey/register/begin");
    assert.equal((await thief.post("/passkey/register/finish", own.register(begin.body))).status, 403);
    const stepUp = await thief.post("/passkey/stepup/begin");
    assert.equal((await thief.post("/passkey/stepup/finish", own.assert(stepUp.body))).status, 400);
    const del = await thief.send("POST", "/account/passkeys/delete", { form: { id } });
    assert.equal(del.headers.get("location"), "/stepup?next=%2Faccount");
    assert.deepEqual(
      stack.keys.Credentials(ALICE).map((c) => c.id),
      [id],
    );
  });

  it("accept register finish from a session exactly at the freshness limit", async (t) => {
    const stack = await startStack(t);
    const client = stack.client();
    await client.signIn(ALICE);
    stack.clock.advance(DEFAULT_FRESH_FOR - 1000);
    const begin = await client.post("/passkey/register/begin");
    stack.clock.advance(1000);
    assert.equal((await client.post("/passkey/register/finish", newAuthenticator({ origin: ORIGIN }).register(begin.body))).status, 200);
  });

  it("refuse cross-origin POSTs before any handler runs (SPEC §5.6)", async (t) => {
    const stack = await startStack(t);
    const client = stack.client();
    await client.signIn(ALICE);
    for (const headers of [{ "Sec-Fetch-Site": "cross-site" }, { "Sec-Fetch-Site": "same-site" }, { Origin: "http://localhost:9999" }]) {
      const res = await client.send("POST", "/passkey/register/begin", { json: {} }, headers);
      assert.equal(res.status, 403, JSON.stringify(headers));
    }
    const same = await client.send("POST", "/passkey/register/begin", { json: {} }, { "Sec-Fetch-Site": "same-origin" });
    assert.equal(same.status, 200);
  });
});

describe("RegisterFinish()", () => {
  it("refuses an expired challenge (2 minutes)", async (t) => {
    const stack = await startStack(t);
    const client = stack.client();
    await client.signIn(ALICE);
    const begin = await client.post("/passkey/register/begin");
    stack.clock.advance(CHALLENGE_TTL);
    const finish = await client.post("/passkey/register/finish", newAuthenticator({ origin: ORIGIN }).register(begin.body));
    assert.equal(finish.status, 400);
    assert.equal(errorOf(finish.body), "challenge_expired");
    assert.equal(stack.keys.Enrolled(ALICE), false);
  });

  it("accepts a challenge just inside its lifetime", async (t) => {
    const stack = await startStack(t);
    const client = stack.client();
    await client.signIn(ALICE);
    const begin = await client.post("/passkey/register/begin");
    stack.clock.advance(CHALLENGE_TTL - 1);
    assert.equal((await client.post("/passkey/register/finish", newAuthenticator({ origin: ORIGIN }).register(begin.body))).status, 200);
  });

  it("spends a challenge once: the same finish twice is refused the second time", async (t) => {
    const stack = await startStack(t);
    const client = stack.client();
    await client.signIn(ALICE);
    const begin = await client.post("/passkey/register/begin");
    const authenticator = newAuthenticator({ origin: ORIGIN });
    assert.equal((await client.post("/passkey/register/finish", authenticator.register(begin.body))).status, 200);
    const again = await client.post("/passkey/register/finish", authenticator.register(begin.body));
    assert.equal(again.status, 400);
    assert.equal(errorOf(again.body), "challenge_expired");
    assert.equal(stack.keys.Credentials(ALICE).length, 1);
  });

  it("refuses a challenge issued to another session", async (t) => {
    const stack = await startStack(t);
    const alice = stack.client();
    await alice.signIn(ALICE);
    const bob = stack.client();
    await bob.signIn(BOB);
    const begin = await alice.post("/passkey/register/begin");
    const finish = await bob.post("/passkey/register/finish", newAuthenticator({ origin: ORIGIN }).register(begin.body));
    assert.equal(finish.status, 400);
    assert.equal(stack.keys.Enrolled(BOB), false);
    assert.equal(stack.keys.Enrolled(ALICE), false);
  });

  it("refuses a response made for another origin", async (t) => {
    const stack = await startStack(t);
    const client = stack.client();
    await client.signIn(ALICE);
    const begin = await client.post("/passkey/register/begin");
    const finish = await client.post(
      "/passkey/register/finish",
      newAuthenticator({ origin: "http://localhost:8080" }).register(begin.body),
    );
    assert.equal(finish.status, 400);
    assert.equal(errorOf(finish.body), "ERR_PASSKEY_ORIGIN");
  });
});

describe("StepUpFinish()", () => {
  it("rotates the session: new token, method passkey, fresh AuthTime; the old token is dead", async (t) => {
    const stack = await startStack(t);
    const authenticator = newAuthenticator({ origin: ORIGIN });
    const [client] = await enrolledClient(stack, ALICE, authenticator);
    stack.clock.advance(STALE);
    const oldToken = client.cookies.get("framework_session");
    const begin = await client.post("/passkey/stepup/begin");
    const finish = await client.post("/passkey/stepup/finish", authenticator.assert(begin.body));
    assert.equal(finish.status, 200);
    assert.deepEqual(finish.body, { location: "/account" });
    const newToken = client.cookies.get("framework_session");
    assert.ok(oldToken !== undefined && newToken !== undefined && newToken !== oldToken);
    const who = await client.whoami();
    assert.ok(typeof who === "object");
    assert.equal(who.Method, "passkey");
    assert.equal(who.AuthTime, stack.clock.now().getTime());
    const stolen = stack.client();
    stolen.cookies.set("framework_session", oldToken);
    assert.equal(await stolen.whoami(), 401);
  });

  it("answers request options naming the subject's passkeys only", async (t) => {
    const stack = await startStack(t);
    const [alice, id] = await enrolledClient(stack, ALICE, newAuthenticator({ origin: ORIGIN }));
    await enrolledClient(stack, BOB, newAuthenticator({ origin: ORIGIN }));
    const { status, body } = await alice.post("/passkey/stepup/begin");
    assert.equal(status, 200);
    assert.ok(typeof body === "object" && body !== null);
    const o = new Map(Object.entries(body));
    assert.match(String(o.get("challenge")), /^[A-Za-z0-9_-]{43}$/);
    assert.equal(o.get("rpId"), "localhost");
    assert.equal(o.get("timeout"), CHALLENGE_TTL);
    assert.deepEqual(o.get("allowCredentials"), [{ type: "public-key", id, transports: ["internal"] }]);
    assert.equal(o.get("userVerification"), "preferred");
  });

  it("refuses step-up begin for a session without passkeys", async (t) => {
    const stack = await startStack(t);
    const client = stack.client();
    await client.signIn(ALICE);
    const { status, body } = await client.post("/passkey/stepup/begin");
    assert.equal(status, 400);
    assert.equal(errorOf(body), "no_credentials");
  });

  it("refuses another subject's passkey and keeps the session as it was", async (t) => {
    const stack = await startStack(t);
    const [alice] = await enrolledClient(stack, ALICE, newAuthenticator({ origin: ORIGIN }));
    const bobKey = newAuthenticator({ origin: ORIGIN });
    await enrolledClient(stack, BOB, bobKey);
    const token = alice.cookies.get("framework_session");
    const begin = await alice.post("/passkey/stepup/begin");
    const finish = await alice.post("/passkey/stepup/finish", bobKey.assert(begin.body));
    assert.equal(finish.status, 400);
    assert.equal(errorOf(finish.body), "ERR_PASSKEY_CREDENTIAL_OWNER");
    assert.equal(alice.cookies.get("framework_session"), token);
    const who = await alice.whoami();
    assert.ok(typeof who === "object");
    assert.equal(who.Method, "magiclink");
  });

  it("refuses an expired step-up challenge", async (t) => {
    const stack = await startStack(t);
    const authenticator = newAuthenticator({ origin: ORIGIN });
    const [client] = await enrolledClient(stack, ALICE, authenticator);
    const begin = await client.post("/passkey/stepup/begin");
    stack.clock.advance(CHALLENGE_TTL);
    const finish = await client.post("/passkey/stepup/finish", authenticator.assert(begin.body));
    assert.equal(finish.status, 400);
    assert.equal(errorOf(finish.body), "challenge_expired");
  });
});

describe("RegisterFinish() and StepUpFinish(): one set of relying-party expectations", () => {
  // WebAuthn L3 §7.1 step 9 / §7.2 step 12: both ceremonies expect this origin; §7.1 step 14 / §7.2 step 15: this RP ID.
  it("refuses a registration and an assertion made for another origin, or for another RP ID", async (t) => {
    const stack = await startStack(t);
    const key = newAuthenticator({ origin: ORIGIN });
    const [client] = await enrolledClient(stack, ALICE, key);
    for (const [authenticator, code] of [
      [newAuthenticator({ origin: "http://localhost:8080" }), "ERR_PASSKEY_ORIGIN"],
      [newAuthenticator({ origin: ORIGIN, rpID: "example.org" }), "ERR_PASSKEY_RP_ID_HASH"],
    ] as const) {
      const begin = await client.post("/passkey/register/begin");
      const finish = await client.post("/passkey/register/finish", authenticator.register(begin.body));
      assert.equal(finish.status, 400);
      assert.equal(errorOf(finish.body), code);
    }
    const begin = await client.post("/passkey/stepup/begin");
    const finish = await client.post("/passkey/stepup/finish", key.assert(begin.body, undefined, { origin: "http://localhost:8080" }));
    assert.equal(finish.status, 400);
    assert.equal(errorOf(finish.body), "ERR_PASSKEY_ORIGIN");
    assert.equal(stack.keys.Credentials(ALICE).length, 1);
  });
});
