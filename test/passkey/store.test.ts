import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import Database from "better-sqlite3";
import { CHALLENGE_TTL, PENDING_TTL, PasskeyStore } from "../../lib/passkey/store.ts";
import { RECOVERY_ALPHABET, RECOVERY_CODE_LENGTH } from "../../lib/passkey/secrets.ts";
import { Schema } from "../../lib/passkey/index.ts";
import { isPasskeyError, parseRegistrationResponse, verifyRegistration } from "../../lib/webauthn/index.ts";
import type { RegisteredCredential } from "../../lib/webauthn/index.ts";
import { loadVectorFile, registrationJSON } from "../_support/passkey-vectors.ts";
import { FakeClock } from "../_support/clock.ts";

function open(): { db: Database.Database; clock: FakeClock; store: PasskeyStore } {
  const db = new Database(":memory:");
  for (const step of Schema) db.exec(step.SQL);
  const clock = new FakeClock(new Date("2025-06-01T12:00:00Z"));
  return { db, clock, store: new PasskeyStore(db, clock) };
}

function count(db: Database.Database, table: string): number {
  const row: unknown = db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get();
  return typeof row === "object" && row !== null && "n" in row && typeof row.n === "number" ? row.n : -1;
}

const credential: RegisteredCredential = {
  id: "AAEC",
  publicKey: Uint8Array.of(0xa1, 0x01, 0x02),
  algorithm: -7,
  signCount: 3,
  transports: ["internal", "hybrid"],
  backupEligible: true,
  backupState: false,
  userVerified: true,
  attestationFormat: "none",
  attestationType: "none",
  attested: false,
  attestationTrusted: false,
  aaguid: "00000000-0000-0000-0000-000000000000",
};

describe("Schema", () => {
  it("has uniquely named steps that apply in order to an empty database", () => {
    const names = Schema.map((s) => s.Name);
    assert.equal(new Set(names).size, names.length);
    assert.ok(names.every((n) => n.startsWith("passkey/")));
    const { db } = open();
    for (const table of ["passkey_credentials", "passkey_challenges", "passkey_pending", "passkey_recovery_codes"]) {
      assert.equal(count(db, table), 0);
    }
  });

  it("drops pre-salt recovery-code rows in a new step after the five released ones", () => {
    const released = [
      "passkey/001-credentials",
      "passkey/002-challenges",
      "passkey/003-pending",
      "passkey/004-recovery-codes",
      "passkey/005-user-handles",
    ];
    assert.deepEqual(
      Schema.slice(0, 5).map((s) => s.Name),
      released,
    );
    const db = new Database(":memory:");
    for (const step of Schema.slice(0, 5)) db.exec(step.SQL);
    db.prepare("INSERT INTO passkey_recovery_codes (subject, code_hash, created_at) VALUES (?, ?, ?)").run("a@x", "legacy", 1);
    for (const step of Schema.slice(5)) db.exec(step.SQL);
    assert.equal(count(db, "passkey_recovery_codes"), 0);
    const store = new PasskeyStore(db, new FakeClock());
    assert.equal(store.recoveryCodesRemaining("a@x"), 0);
    store.regenerateRecoveryCodes("a@x");
    assert.equal(store.recoveryCodesRemaining("a@x"), 10);
  });
});

describe("PasskeyStore credentials", () => {
  it("saves, reads back exact key bytes, lists, renames, updates and deletes", () => {
    const { store, clock } = open();
    assert.equal(store.enrolled("a@x"), false);
    const saved = store.saveCredential("a@x", credential, { name: "Laptop", userHandle: Uint8Array.of(9, 9) });
    assert.deepEqual(saved.publicKey, credential.publicKey);
    assert.deepEqual(saved.transports, ["internal", "hybrid"]);
    assert.deepEqual(saved.userHandle, Uint8Array.of(9, 9));
    assert.equal(saved.createdAt.getTime(), clock.now().getTime());
    assert.equal(store.enrolled("a@x"), true);
    assert.equal(store.listCredentials("a@x").length, 1);
    assert.equal(store.listCredentials("b@x").length, 0);
    assert.equal(store.renameCredential("b@x", "AAEC", "Mine"), false);
    assert.equal(store.renameCredential("a@x", "AAEC", " Phone "), true);
    assert.equal(store.getCredential("AAEC")?.name, "Phone");
    assert.equal(store.updateCounter("AAEC", 10, true, new Date(clock.now().getTime() + 5)), true);
    assert.equal(store.updateCounter("AAEC", 4, true, new Date(clock.now().getTime() + 6)), true);
    assert.equal(store.getCredential("AAEC")?.signCount, 10, "counter never moves backwards");
    assert.equal(store.getCredential("AAEC")?.backupState, true);
    assert.equal(store.getCredential("AAEC")?.lastUsedAt?.getTime(), clock.now().getTime() + 6);
    assert.equal(store.deleteCredential("b@x", "AAEC"), false);
    assert.equal(store.deleteCredential("a@x", "AAEC"), true);
    assert.equal(store.getCredential("AAEC"), undefined);
  });

  it("refuses a credential id already registered, to anyone", () => {
    const { store } = open();
    store.saveCredential("a@x", credential);
    assert.throws(
      () => store.saveCredential("b@x", credential),
      (e: unknown) => isPasskeyError(e) && e.code === "ERR_PASSKEY_CREDENTIAL_TAKEN",
    );
    assert.equal(store.getCredential("AAEC")?.subject, "a@x");
  });

  it("refuses names with control characters or over 64 characters", () => {
    const { store } = open();
    for (const name of ["a\nb", "x".repeat(65)]) {
      assert.throws(
        () => store.saveCredential("a@x", credential, { name }),
        (e: unknown) => isPasskeyError(e) && e.code === "ERR_PASSKEY_INVALID_NAME",
      );
    }
  });
});

describe("a verified registration, stored and read back", () => {
  it("keeps the fields the record shares with the registration, with their values", () => {
    const v = loadVectorFile("w3c-webauthn-l3.json").vectors.find((x) => x.name === "w3c/none-es256/registration");
    assert.ok(v !== undefined);
    const registered = verifyRegistration(parseRegistrationResponse(registrationJSON(v)), {
      challenge: Buffer.from(v.expected.challenge, "base64url"),
      origin: "https://example.org",
      rpID: "example.org",
      requireUserVerification: false,
    });
    const { store } = open();
    const saved = store.saveCredential("a@x", registered, { name: "laptop" });
    const read = store.getCredential(registered.id);
    assert.deepEqual(read, saved);
    assert.ok(read !== undefined);
    const shared = Object.keys(read).filter((key) => key in registered);
    assert.deepEqual(shared.sort(), ["aaguid", "algorithm", "backupEligible", "backupState", "id", "publicKey", "signCount", "transports"]);
    const value = (x: object, key: string): unknown => {
      const v: unknown = Reflect.get(x, key);
      return v instanceof Uint8Array ? Buffer.from(v).toString("hex") : v;
    };
    for (const key of shared) assert.deepEqual(value(read, key), value(registered, key), key);
  });
});

describe("PasskeyStore challenges", () => {
  it("returns a challenge once", () => {
    const { store } = open();
    const c = store.createChallenge("stepup", "session-hash");
    assert.equal(c.length, 32);
    assert.deepEqual(store.consumeChallenge("stepup", "session-hash"), c);
    assert.equal(store.consumeChallenge("stepup", "session-hash"), undefined);
  });

  it("binds a challenge to its ceremony and requester", () => {
    const { store } = open();
    store.createChallenge("register", "s1");
    assert.equal(store.consumeChallenge("signin", "s1"), undefined);
    assert.equal(store.consumeChallenge("register", "s2"), undefined);
    assert.ok(store.consumeChallenge("register", "s1") !== undefined);
  });

  it("stores the binder hashed, never as given", () => {
    const { store, db } = open();
    store.createChallenge("register", "raw-token");
    assert.equal(db.prepare("SELECT 1 FROM passkey_challenges WHERE bound_to = ?").get("raw-token"), undefined);
  });

  it("expires at 2 minutes and deletes the expired row when presented", () => {
    const { store, clock, db } = open();
    store.createChallenge("stepup", "s");
    clock.advance(CHALLENGE_TTL - 1);
    assert.ok(store.consumeChallenge("stepup", "s") !== undefined);
    store.createChallenge("stepup", "s");
    clock.advance(CHALLENGE_TTL);
    assert.equal(store.consumeChallenge("stepup", "s"), undefined);
    assert.equal(count(db, "passkey_challenges"), 0);
    assert.equal(CHALLENGE_TTL, 120000);
  });

  it("replaces an earlier challenge for the same ceremony and requester", () => {
    const { store } = open();
    store.createChallenge("signin", "p");
    const second = store.createChallenge("signin", "p");
    assert.deepEqual(store.consumeChallenge("signin", "p"), second);
  });
});

describe("PasskeyStore pending half-sessions", () => {
  it("reads while live, consumes once, and stores only the token hash", () => {
    const { store, db } = open();
    const token = store.createPending("a@x", "magiclink");
    assert.match(token, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(db.prepare("SELECT 1 FROM passkey_pending WHERE token_hash = ?").get(token), undefined);
    assert.deepEqual(store.readPending(token), { subject: "a@x", firstMethod: "magiclink" });
    assert.deepEqual(store.readPending(token), { subject: "a@x", firstMethod: "magiclink" });
    assert.deepEqual(store.consumePending(token), { subject: "a@x", firstMethod: "magiclink" });
    assert.equal(store.consumePending(token), undefined);
    assert.equal(store.readPending(token), undefined);
  });

  it("expires at 5 minutes", () => {
    const { store, clock } = open();
    const token = store.createPending("a@x", "magiclink");
    clock.advance(PENDING_TTL - 1);
    assert.ok(store.readPending(token) !== undefined);
    clock.advance(1);
    assert.equal(store.readPending(token), undefined);
    assert.equal(store.consumePending(token), undefined);
    assert.equal(PENDING_TTL, 300000);
  });
});

describe("PasskeyStore recovery codes", () => {
  it("issues 10 distinct xxxx-xxxx-xxxx-xxxx codes (16 characters, about 79 bits) from the unambiguous alphabet", () => {
    const { store } = open();
    const codes = store.regenerateRecoveryCodes("a@x");
    assert.equal(codes.length, 10);
    assert.equal(new Set(codes).size, 10);
    assert.equal(RECOVERY_CODE_LENGTH, 16);
    assert.ok(RECOVERY_CODE_LENGTH * Math.log2(RECOVERY_ALPHABET.length) > 79);
    for (const code of codes) {
      assert.match(code, /^[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}$/);
      assert.ok([...code.replaceAll("-", "")].every((ch) => RECOVERY_ALPHABET.includes(ch)));
    }
    assert.equal(store.recoveryCodesRemaining("a@x"), 10);
  });

  it("stores each code as SHA-256 of the domain, the set's random salt and the normalised code", () => {
    const { store, db } = open();
    const codes = store.regenerateRecoveryCodes("a@x");
    const rows = db.prepare("SELECT code_hash, salt FROM passkey_recovery_codes WHERE subject = ?").all("a@x") as {
      code_hash: string;
      salt: string;
    }[];
    const salts = new Set(rows.map((r) => r.salt));
    assert.equal(salts.size, 1, "one salt per set");
    const [salt = ""] = salts;
    assert.match(salt, /^[A-Za-z0-9_-]{22}$/, "16 random bytes");
    const salted = (s: string, code: string): string =>
      createHash("sha256")
        .update(`latch/passkey/recovery-code v2\0${s}\0${code.replaceAll("-", "")}`)
        .digest("base64url");
    assert.deepEqual(new Set(rows.map((r) => r.code_hash)), new Set(codes.map((c) => salted(salt, c))));
    for (const code of codes) {
      assert.ok(
        !rows.some((r) => r.code_hash === createHash("sha256").update(code.replaceAll("-", "")).digest("base64url")),
        "not an unsalted hash",
      );
    }
    store.regenerateRecoveryCodes("b@x");
    assert.notEqual(
      db.prepare("SELECT salt FROM passkey_recovery_codes WHERE subject = 'b@x' LIMIT 1").pluck().get(),
      salt,
      "each set its salt",
    );
  });

  it("codes keep working when their rows move to a new address (the salt is not the address)", () => {
    const { store, db } = open();
    const [code = ""] = store.regenerateRecoveryCodes("old@x");
    db.prepare("UPDATE passkey_recovery_codes SET subject = 'new@x' WHERE subject = 'old@x'").run();
    assert.equal(store.useRecoveryCode("new@x", code), true);
  });

  it("a code stored before the salt column (salted with its subject, v1) still works under that subject", () => {
    const { store, db } = open();
    const v1 = createHash("sha256").update("latch/passkey/recovery-code v1\0a@x\0abcdabcdabcdabcd").digest("base64url");
    db.prepare("INSERT INTO passkey_recovery_codes (subject, code_hash, created_at) VALUES ('a@x', ?, 0)").run(v1);
    assert.equal(store.useRecoveryCode("a@x", "abcd-abcd-abcd-abcd"), true);
  });

  it("replaces the old set on regeneration", () => {
    const { store } = open();
    const old = store.regenerateRecoveryCodes("a@x");
    const fresh = store.regenerateRecoveryCodes("a@x");
    assert.equal(store.recoveryCodesRemaining("a@x"), 10);
    assert.equal(store.useRecoveryCode("a@x", old[0] ?? ""), false);
    assert.equal(store.useRecoveryCode("a@x", fresh[0] ?? ""), true);
  });

  it("accepts a code once, ignoring case, spaces and dashes", () => {
    const { store } = open();
    const [code = ""] = store.regenerateRecoveryCodes("a@x");
    const typed = ` ${code.toUpperCase().replace("-", " ")} `;
    assert.equal(store.useRecoveryCode("a@x", typed), true);
    assert.equal(store.useRecoveryCode("a@x", code), false);
    assert.equal(store.recoveryCodesRemaining("a@x"), 9);
  });

  it("a wrong code, or another subject's code, consumes nothing", () => {
    const { store, db } = open();
    const [code = ""] = store.regenerateRecoveryCodes("a@x");
    store.regenerateRecoveryCodes("b@x");
    assert.equal(store.useRecoveryCode("a@x", "zzzz-zzzz-zzzz-zzzz"), false);
    assert.equal(store.useRecoveryCode("b@x", code), false);
    assert.equal(store.recoveryCodesRemaining("a@x"), 10);
    assert.equal(store.recoveryCodesRemaining("b@x"), 10);
    assert.equal(db.prepare("SELECT 1 FROM passkey_recovery_codes WHERE code_hash = ?").get(code), undefined);
  });
});

describe("PasskeyStore.sweep()", () => {
  it("removes only expired challenges and pending rows", async () => {
    const { store, clock, db } = open();
    store.saveCredential("a@x", credential);
    store.regenerateRecoveryCodes("a@x");
    store.createChallenge("stepup", "old");
    const oldPending = store.createPending("a@x", "magiclink");
    clock.advance(60000);
    store.createChallenge("stepup", "new");
    const newPending = store.createPending("a@x", "magiclink");
    const now = new Date(clock.now().getTime() + CHALLENGE_TTL - 60000);
    assert.equal(await store.sweep(now), 1);
    assert.equal(count(db, "passkey_challenges"), 1);
    assert.equal(count(db, "passkey_pending"), 2);
    clock.advance(now.getTime() - clock.now().getTime());
    assert.ok(store.consumeChallenge("stepup", "new") !== undefined);
    assert.equal(await store.sweep(new Date(clock.now().getTime() + PENDING_TTL)), 2);
    assert.equal(store.readPending(oldPending), undefined);
    assert.equal(store.readPending(newPending), undefined);
    assert.equal(count(db, "passkey_credentials"), 1);
    assert.equal(count(db, "passkey_recovery_codes"), 10);
  });
});

describe("new PasskeyStore()", () => {
  it("prepares its statements once: no operation prepares SQL afterwards", async (t) => {
    const { store, clock, db } = open();
    const prepare = t.mock.method(db, "prepare");
    store.saveCredential("a@x", credential, { name: "Laptop" });
    store.getCredential(credential.id);
    store.listCredentials("a@x");
    store.renameCredential("a@x", credential.id, "Phone");
    store.updateCounter(credential.id, 4, false, clock.now());
    for (let i = 0; i < 3; i++) store.enrolled("a@x");
    store.consumeChallenge("stepup", "s");
    store.createChallenge("stepup", "s");
    store.consumeChallenge("stepup", "s");
    const token = store.createPending("a@x", "magiclink");
    store.readPending(token);
    store.consumePending(token);
    const [code = ""] = store.regenerateRecoveryCodes("a@x");
    store.recoveryCodesRemaining("a@x");
    store.useRecoveryCode("a@x", code);
    await store.sweep(clock.now());
    store.deleteCredential("a@x", credential.id);
    assert.equal(prepare.mock.callCount(), 0);
    assert.equal(store.enrolled("a@x"), false, "the operations still ran");
  });
});
