/*
 * PasskeyStore: the passkey records (tables in schema.ts). Single-use rows
 * (challenges, pending half-sessions, recovery codes) are consumed by one
 * `DELETE ... RETURNING`, so two concurrent requests can never both spend
 * one; an expired row is deleted when presented and reported as absent.
 */
import { Buffer } from "node:buffer";
import { sweepInSteps, type DB, type Transaction } from "../db/index.ts";
import { cryptoRandom, systemClock, type Clock, type RandomReader } from "../http/index.ts";
import { PasskeyError, type PasskeyErrorCode, type RegisteredCredential } from "../webauthn/index.ts";
import { readCredentialRow, type PasskeyCredential } from "./store-rows.ts";
import { HashToken, NewToken } from "../session/index.ts";
import { hashRecoveryCode, newRecoveryCode, newRecoveryCodeSalt } from "./secrets.ts";

/** How long a challenge stays valid: 2 minutes (SPEC "Passkey challenge lifetime"). */
export const CHALLENGE_TTL = 120000;
/** How long a pending half-session stays valid: 5 minutes (SPEC "Pending half-session lifetime"). */
export const PENDING_TTL = 300000;
/** Recovery codes issued per regeneration (SPEC: 10, replacing any existing set). */
export const RECOVERY_CODE_COUNT = 10;
/** Longest credential name accepted, in characters. */
export const MAX_CREDENTIAL_NAME = 64;

/** The ceremony a challenge was issued for. */
export type ChallengeCeremony = "register" | "stepup" | "signin";

/** A pending half-session: who must still assert, and how they signed in first. */
export interface PendingSignIn {
  /** The subject who passed the first factor. */
  subject: string;
  /** The first factor's method string, e.g. "magiclink". */
  firstMethod: string;
}

/** Options for `PasskeyStore`. */
export interface PasskeyStoreOptions {
  /** Source of challenges, tokens and recovery codes. @default cryptoRandom */
  random?: RandomReader;
}

/** Optional fields of a credential being saved. */
export interface SaveCredentialOptions {
  /** Display name. @default "" */
  name?: string;
  /** The user handle (user.id) the credential was created for. */
  userHandle?: Uint8Array;
}

function refused(code: PasskeyErrorCode, step: string, reason: string): PasskeyError {
  return new PasskeyError(code, `passkey store: ${reason}`, { step, status: 400 });
}

function checkName(name: string): string {
  const trimmed = name.trim();
  // STYLE §10: no control characters in values that reach HTML and logs.
  if (trimmed.length > MAX_CREDENTIAL_NAME || /[\u0000-\u001f\u007f]/.test(trimmed)) {
    throw refused("ERR_PASSKEY_INVALID_NAME", "store", "name too long or has control characters");
  }
  return trimmed;
}

function prepareStatements(db: DB) {
  return {
    insertCredential: db.prepare(`INSERT INTO passkey_credentials (id, subject, public_key, algorithm, sign_count, transports,
      backup_eligible, backup_state, user_handle, name, aaguid, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (id) DO NOTHING`),
    getCredential: db.prepare("SELECT * FROM passkey_credentials WHERE id = ?"),
    listCredentials: db.prepare("SELECT * FROM passkey_credentials WHERE subject = ? ORDER BY created_at, id"),
    renameCredential: db.prepare("UPDATE passkey_credentials SET name = ? WHERE subject = ? AND id = ?"),
    deleteCredential: db.prepare("DELETE FROM passkey_credentials WHERE subject = ? AND id = ?"),
    updateCounter: db.prepare(
      "UPDATE passkey_credentials SET sign_count = MAX(sign_count, ?), backup_state = ?, last_used_at = ? WHERE id = ?",
    ),
    enrolled: db.prepare("SELECT 1 FROM passkey_credentials WHERE subject = ? LIMIT 1"),
    putChallenge: db.prepare("INSERT OR REPLACE INTO passkey_challenges (ceremony, bound_to, challenge, expires_at) VALUES (?, ?, ?, ?)"),
    takeChallenge: db.prepare<[string, string], { challenge: Uint8Array; expires_at: number }>(
      "DELETE FROM passkey_challenges WHERE ceremony = ? AND bound_to = ? RETURNING challenge, expires_at",
    ),
    putPending: db.prepare("INSERT INTO passkey_pending (token_hash, subject, first_method, expires_at) VALUES (?, ?, ?, ?)"),
    readPending: db.prepare<[string, number], PendingSignIn>(
      "SELECT subject, first_method AS firstMethod FROM passkey_pending WHERE token_hash = ? AND expires_at > ?",
    ),
    takePending: db.prepare<[string], PendingSignIn & { expires_at: number }>(
      "DELETE FROM passkey_pending WHERE token_hash = ? RETURNING subject, first_method AS firstMethod, expires_at",
    ),
    deleteCodes: db.prepare("DELETE FROM passkey_recovery_codes WHERE subject = ?"),
    insertCode: db.prepare("INSERT OR IGNORE INTO passkey_recovery_codes (subject, code_hash, created_at, salt) VALUES (?, ?, ?, ?)"),
    codeSalts: db.prepare<[string], { salt: string }>("SELECT DISTINCT salt FROM passkey_recovery_codes WHERE subject = ?"),
    countCodes: db.prepare<[string], number>("SELECT COUNT(*) FROM passkey_recovery_codes WHERE subject = ?").pluck(),
    userHandle: db.prepare<[string], Buffer>("SELECT user_handle FROM passkey_user_handles WHERE subject = ?").pluck(),
    putUserHandle: db.prepare("INSERT INTO passkey_user_handles (subject, user_handle) VALUES (?, ?) ON CONFLICT (subject) DO NOTHING"),
    takeCode: db.prepare("DELETE FROM passkey_recovery_codes WHERE subject = ? AND code_hash = ? RETURNING 1"),
    sweepChallenges: db.prepare(
      "DELETE FROM passkey_challenges WHERE rowid IN (SELECT rowid FROM passkey_challenges WHERE expires_at <= ? LIMIT ?)",
    ),
    sweepPending: db.prepare(
      "DELETE FROM passkey_pending WHERE rowid IN (SELECT rowid FROM passkey_pending WHERE expires_at <= ? LIMIT ?)",
    ),
  };
}

/**
 * Stores credentials, challenges, pending half-sessions and recovery codes.
 * Every statement is prepared once, in the constructor (`enrolled` runs on
 * every sign-in through `Gate`).
 */
export class PasskeyStore {
  readonly #db: DB;
  readonly #clock: Clock;
  readonly #random: RandomReader;
  readonly #sql: ReturnType<typeof prepareStatements>;
  readonly #replaceCodes: Transaction<(subject: string, salt: string, hashes: readonly string[], now: number) => void>;

  constructor(db: DB, clock: Clock, options: PasskeyStoreOptions = {}) {
    this.#db = db;
    this.#clock = clock;
    this.#random = options.random ?? cryptoRandom;
    const sql = prepareStatements(db);
    this.#sql = sql;
    this.#replaceCodes = db.transaction((subject: string, salt: string, hashes: readonly string[], now: number) => {
      sql.deleteCodes.run(subject);
      for (const hash of hashes) sql.insertCode.run(subject, hash, now, salt);
    });
  }

  #now(): number {
    return this.#clock.now().getTime();
  }

  /** Stores a verified credential for `subject`. Throws PasskeyError ERR_PASSKEY_CREDENTIAL_TAKEN if the id exists. */
  saveCredential(subject: string, credential: RegisteredCredential, options: SaveCredentialOptions = {}): PasskeyCredential {
    const c = credential;
    const info = this.#sql.insertCredential.run(
      c.id,
      subject,
      c.publicKey,
      c.algorithm,
      c.signCount,
      JSON.stringify(c.transports),
      c.backupEligible ? 1 : 0,
      c.backupState ? 1 : 0,
      options.userHandle ?? null,
      checkName(options.name ?? ""),
      c.aaguid,
      this.#now(),
    );
    // WebAuthn L3 §7.1 step 26: a credential id is registered to one user only.
    if (info.changes !== 1)
      throw refused("ERR_PASSKEY_CREDENTIAL_TAKEN", "7.1 step 26: credentialId", "credential id is already registered");
    const saved = this.getCredential(c.id);
    if (saved === undefined)
      throw new PasskeyError("ERR_PASSKEY_CREDENTIAL_ID", "passkey store: saved credential vanished", { step: "store" });
    return saved;
  }

  /** Returns the credential with `id` (base64url), or undefined. */
  getCredential(id: string): PasskeyCredential | undefined {
    const row: unknown = this.#sql.getCredential.get(id);
    return row === undefined ? undefined : readCredentialRow(row);
  }

  /** Lists `subject`'s credentials, oldest first. */
  listCredentials(subject: string): PasskeyCredential[] {
    const rows: unknown[] = this.#sql.listCredentials.all(subject);
    return rows.map(readCredentialRow);
  }

  /** Renames `subject`'s credential; reports whether it existed. Throws ERR_PASSKEY_INVALID_NAME. */
  renameCredential(subject: string, id: string, name: string): boolean {
    return this.#sql.renameCredential.run(checkName(name), subject, id).changes === 1;
  }

  /** Deletes `subject`'s credential; reports whether it existed. */
  deleteCredential(subject: string, id: string): boolean {
    return this.#sql.deleteCredential.run(subject, id).changes === 1;
  }

  /** Records a verified assertion (WebAuthn L3 §7.2 step 24); the counter never moves backwards. Reports whether the credential exists. */
  updateCounter(id: string, signCount: number, backupState: boolean, usedAt: Date): boolean {
    return this.#sql.updateCounter.run(signCount, backupState ? 1 : 0, usedAt.getTime(), id).changes === 1;
  }

  /** Reports whether `subject` has at least one passkey (SPEC `Enrolled`). */
  enrolled(subject: string): boolean {
    return this.#sql.enrolled.get(subject) !== undefined;
  }

  /**
   * Returns `subject`'s WebAuthn user handle (L3 §5.4.3 `user.id`), creating it on first use: 32 random
   * bytes shared by all its credentials, random because §14.6.1 asks that it carry no personal information.
   */
  userHandle(subject: string): Uint8Array {
    const known = this.#sql.userHandle.get(subject);
    if (known !== undefined) return new Uint8Array(known);
    this.#sql.putUserHandle.run(subject, Buffer.from(this.#random.read(32)));
    return new Uint8Array(this.#sql.userHandle.get(subject) ?? []);
  }

  /** Issues a 32-byte challenge for `ceremony`, bound to `boundTo` (stored hashed), replacing any earlier one. */
  createChallenge(ceremony: ChallengeCeremony, boundTo: string): Uint8Array {
    const challenge = Uint8Array.from(this.#random.read(32));
    this.#sql.putChallenge.run(ceremony, HashToken(boundTo), challenge, this.#now() + CHALLENGE_TTL);
    return challenge;
  }

  /** Consumes the challenge for `ceremony` and `boundTo`: returned once if live; an expired one is deleted and undefined. */
  consumeChallenge(ceremony: ChallengeCeremony, boundTo: string): Uint8Array | undefined {
    const row = this.#sql.takeChallenge.get(ceremony, HashToken(boundTo));
    return row === undefined || row.expires_at <= this.#now() ? undefined : new Uint8Array(row.challenge);
  }

  /** Creates a pending half-session for `subject` after a verified first factor; returns its token (only the hash is stored). */
  createPending(subject: string, firstMethod: string): string {
    const token = NewToken(this.#random);
    this.#sql.putPending.run(HashToken(token), subject, firstMethod, this.#now() + PENDING_TTL);
    return token;
  }

  /** Returns the live pending half-session for `token`, without consuming it. */
  readPending(token: string): PendingSignIn | undefined {
    return this.#sql.readPending.get(HashToken(token), this.#now());
  }

  /** Consumes the pending half-session for `token`: returned once if live; an expired one is deleted and undefined. */
  consumePending(token: string): PendingSignIn | undefined {
    const row = this.#sql.takePending.get(HashToken(token));
    return row === undefined || row.expires_at <= this.#now() ? undefined : { subject: row.subject, firstMethod: row.firstMethod };
  }

  /** Replaces `subject`'s recovery codes with 10 new ones in one transaction and returns them (shown once, stored hashed). */
  regenerateRecoveryCodes(subject: string): string[] {
    const codes = Array.from({ length: RECOVERY_CODE_COUNT }, () => newRecoveryCode(this.#random));
    const salt = newRecoveryCodeSalt(this.#random);
    this.#replaceCodes.immediate(
      subject,
      salt,
      codes.map((code) => hashRecoveryCode(salt, subject, code)),
      this.#now(),
    );
    return codes;
  }

  /** Counts `subject`'s unused recovery codes. */
  recoveryCodesRemaining(subject: string): number {
    return this.#sql.countCodes.get(subject) ?? 0;
  }

  /** Burns `code` if it is one of `subject`'s unused codes; reports whether it was. A wrong code consumes nothing. */
  useRecoveryCode(subject: string, code: string): boolean {
    // One set has one salt; a v1 row (empty salt) may sit beside it until the next regeneration.
    return this.#sql.codeSalts
      .all(subject)
      .some(({ salt }) => this.#sql.takeCode.get(subject, hashRecoveryCode(salt, subject, code)) !== undefined);
  }

  /** Deletes expired challenges and pending half-sessions (never credentials or recovery codes) in `sweepInSteps`' steps; resolves with how many. */
  async sweep(now: Date): Promise<number> {
    const t = now.getTime();
    const { challenges, pending } = await sweepInSteps(this.#db, {
      challenges: (limit) => this.#sql.sweepChallenges.run(t, limit).changes,
      pending: (limit) => this.#sql.sweepPending.run(t, limit).changes,
    });
    return challenges + pending;
  }
}

/**
 * Deletes expired passkey challenges and pending half-sessions as of `now` (SPEC §2.7 `Sweep(db, now)`)
 * in bounded steps; resolves with how many rows. A sweep runs every few minutes: a store per call is cheap.
 */
export function Sweep(db: DB, now: Date): Promise<number> {
  return new PasskeyStore(db, systemClock).sweep(now);
}
