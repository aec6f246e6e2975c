/*
 * `Sweep(db, now)` (SPEC §2.7): deletes exactly the expired single-use rows,
 * challenges past 2 minutes and pending half-sessions past 5 minutes, at
 * their boundaries, and never credentials, recovery codes or user handles.
 * The lifetimes are written out here, not read from CHALLENGE_TTL and
 * PENDING_TTL, so changing either fails this test.
 */
import { describe, it, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { applySchema, OpenDB, type DB } from "../../lib/db/index.ts";
import { PasskeyStore } from "../../lib/passkey/store.ts";
import { Schema, Sweep } from "../../lib/passkey/index.ts";
import type { RegisteredCredential } from "../../lib/webauthn/index.ts";
import { FakeClock } from "../_support/clock.ts";

const SECOND = 1000;
const TWO_MINUTES = 2 * 60 * SECOND;
const FIVE_MINUTES = 5 * 60 * SECOND;

const credential: RegisteredCredential = {
  id: "AAEC",
  publicKey: Uint8Array.of(0xa1, 0x01, 0x02),
  algorithm: -7,
  signCount: 0,
  transports: ["internal"],
  backupEligible: false,
  backupState: false,
  userVerified: true,
  attestationFormat: "none",
  attestationType: "none",
  attested: false,
  attestationTrusted: false,
  aaguid: "00000000-0000-0000-0000-000000000000",
};

function setup(t: TestContext): { db: DB; clock: FakeClock; store: PasskeyStore; start: number } {
  const db = OpenDB(":memory:");
  t.after(() => db.close());
  applySchema(db, Schema);
  const clock = new FakeClock();
  return { db, clock, store: new PasskeyStore(db, clock), start: clock.now().getTime() };
}

function count(db: DB, table: string): number {
  return db.prepare<[], { n: number }>(`SELECT COUNT(*) AS n FROM ${table}`).get()?.n ?? -1;
}

/** The rows of every passkey table, by table. */
function counts(db: DB): Record<string, number> {
  const tables = ["passkey_challenges", "passkey_pending", "passkey_credentials", "passkey_recovery_codes", "passkey_user_handles"];
  return Object.fromEntries(tables.map((table) => [table, count(db, table)]));
}

describe("passkey Sweep(db, now)", () => {
  it("deletes challenges from 2 minutes after issue, keeping the later ones", async (t) => {
    const { db, clock, store, start } = setup(t);
    store.createChallenge("register", "early");
    store.createChallenge("stepup", "early");
    store.createChallenge("signin", "early");
    clock.advance(1);
    store.createChallenge("stepup", "late");
    assert.equal(await Sweep(db, new Date(start + TWO_MINUTES - 1)), 0, "all four live 1 ms before 2 minutes");
    assert.equal(count(db, "passkey_challenges"), 4);
    assert.equal(await Sweep(db, new Date(start + TWO_MINUTES)), 3, "the three issued first expire at 2 minutes");
    assert.equal(count(db, "passkey_challenges"), 1);
    clock.advance(TWO_MINUTES - 2);
    assert.ok(store.consumeChallenge("stepup", "late") !== undefined, "the kept challenge is still usable");
  });

  it("deletes pending half-sessions from 5 minutes after creation, keeping the later ones", async (t) => {
    const { db, clock, store, start } = setup(t);
    const early = store.createPending("ann@example.com", "magiclink");
    clock.advance(1);
    const late = store.createPending("bob@example.com", "magiclink");
    assert.equal(await Sweep(db, new Date(start + FIVE_MINUTES - 1)), 0, "both live 1 ms before 5 minutes");
    assert.equal(count(db, "passkey_pending"), 2);
    assert.equal(await Sweep(db, new Date(start + FIVE_MINUTES)), 1, "the first expires at 5 minutes");
    assert.equal(count(db, "passkey_pending"), 1);
    clock.advance(FIVE_MINUTES - 2);
    assert.equal(store.readPending(early), undefined);
    assert.deepEqual(store.readPending(late), { subject: "bob@example.com", firstMethod: "magiclink" }, "the kept one is still usable");
    assert.equal(await Sweep(db, new Date(start + 1 + FIVE_MINUTES)), 1);
    assert.equal(count(db, "passkey_pending"), 0);
  });

  it("never deletes credentials, recovery codes or user handles, however late", async (t) => {
    const { db, store, start } = setup(t);
    store.saveCredential("ann@example.com", credential, { userHandle: Uint8Array.of(1, 2, 3) });
    store.regenerateRecoveryCodes("ann@example.com");
    db.prepare("INSERT INTO passkey_user_handles (subject, user_handle) VALUES (?, ?)").run("ann@example.com", Buffer.from([1, 2, 3]));
    store.createChallenge("stepup", "s");
    store.createPending("ann@example.com", "magiclink");
    const before = counts(db);
    assert.deepEqual(before, {
      passkey_challenges: 1,
      passkey_pending: 1,
      passkey_credentials: 1,
      passkey_recovery_codes: 10,
      passkey_user_handles: 1,
    });
    assert.equal(await Sweep(db, new Date(start + 365 * 24 * 60 * 60 * SECOND)), 2);
    assert.deepEqual(counts(db), { ...before, passkey_challenges: 0, passkey_pending: 0 });
    assert.equal(store.recoveryCodesRemaining("ann@example.com"), 10);
    assert.equal(store.enrolled("ann@example.com"), true);
  });

  it("finds nothing on a second sweep at the same time", async (t) => {
    const { db, store, start } = setup(t);
    store.createChallenge("signin", "s");
    store.createPending("ann@example.com", "magiclink");
    assert.equal(await Sweep(db, new Date(start + FIVE_MINUTES)), 2);
    assert.equal(await Sweep(db, new Date(start + FIVE_MINUTES)), 0);
  });
});
