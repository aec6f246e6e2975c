/*
 * Emailed links (SPEC §3.2), stored hashed with purpose, address, expiry, the asking browser's binding
 * hash and an HMAC of the code (link-code.ts). A link or code is spent by one `DELETE ... RETURNING`
 * that requires the binding; without it nothing is spent (README "Scanner-safe links").
 */
import { SWEEP_STEP, type DB } from "../db/index.ts";
import { type Clock } from "../http/index.ts";
import { equalSecret, immediately } from "../internal/index.ts";
import { HashToken, NewToken } from "../session/index.ts";
import { MAX_CODE_ATTEMPTS, codeForToken, hashCode } from "./link-code.ts";

/** Lifetime of an emailed link and its code: 10 minutes (OWASP ASVS 5.0 §6.5.5 caps out-of-band links there). */
export const LINK_TTL: number = 10 * 60 * 1000;

/** The purpose of sign-in links. */
export const PURPOSE_SIGNIN: string = "signin";

/** The outcome of a code: the address, or why not ("voided": the last allowed wrong try). */
export type CodeResult = { ok: true; address: string } | { ok: false; reason: "wrong" | "voided" };

interface Row {
  token_hash: string;
  purpose: string;
  address: string;
  expires_at: number;
  code_hash: string;
}

/** The count of wrong codes per address and per browser (the sign-in rate limiter). */
export interface CodeMisses {
  codeLocked(address: string, bindingHash: string): boolean;
  recordCodeMiss(address: string, bindingHash: string): void;
}

/** The store of emailed links. */
export class Links {
  readonly #db: DB;
  readonly #clock: Clock;
  readonly #ttl: number;
  readonly #key: Buffer;
  readonly #sql;

  constructor(db: DB, clock: Clock, codeKey: Buffer, ttl: number = LINK_TTL) {
    this.#db = db;
    this.#clock = clock;
    this.#key = codeKey;
    this.#ttl = ttl;
    this.#sql = {
      insert: db.prepare(
        "INSERT INTO signin_links (token_hash, purpose, address, expires_at, binding_hash, code_hash) VALUES (?, ?, ?, ?, ?, ?)",
      ),
      peek: db.prepare<[string], Row>("SELECT * FROM signin_links WHERE token_hash = ?"),
      consume: db.prepare<[string, string], Row>("DELETE FROM signin_links WHERE token_hash = ? AND binding_hash = ? RETURNING *"),
      ofBinding: db.prepare<[string, string, number], Row>(
        "SELECT * FROM signin_links WHERE binding_hash = ? AND purpose = ? AND expires_at > ?",
      ),
      take: db.prepare<[string], Row>("DELETE FROM signin_links WHERE token_hash = ? RETURNING *"),
      miss: db.prepare("UPDATE signin_links SET attempts = attempts + 1 WHERE binding_hash = ?"),
      // SPEC §3.2 (latch): the try that reaches the limit voids every pending link of the browser, not just the oldest.
      void: db.prepare(
        "DELETE FROM signin_links WHERE binding_hash = @binding AND EXISTS (SELECT 1 FROM signin_links WHERE binding_hash = @binding AND attempts >= @max)",
      ),
      sweep: db.prepare("DELETE FROM signin_links WHERE rowid IN (SELECT rowid FROM signin_links WHERE expires_at <= ? LIMIT ?)"),
    };
  }

  /** Creates a link for `address` bound to `bindingHash`; returns the token and code (to email) and the hash (to revoke). */
  create(address: string, purpose: string, bindingHash: string): { token: string; hash: string; code: string } {
    const token = NewToken();
    const hash = HashToken(token);
    const code = codeForToken(this.#key, token);
    this.#sql.insert.run(hash, purpose, address, this.#clock.now().getTime() + this.#ttl, bindingHash, hashCode(this.#key, hash, code));
    return { token, hash, code };
  }

  /** Spends `token` if it was bound to `bindingHash`; returns the address when it was live and of `purpose`. */
  consume(token: string, purpose: string, bindingHash: string): { spent: boolean; address: string | undefined } {
    const row = this.#sql.consume.get(HashToken(token), bindingHash);
    if (row === undefined) return { spent: false, address: undefined };
    return { spent: true, address: this.#live(row, purpose) ? row.address : undefined };
  }

  /** Reads a live link of `purpose` without spending it (the page for a browser without the binding). */
  peek(token: string, purpose: string): { address: string; code: string; expiresAt: Date } | undefined {
    const row = this.#sql.peek.get(HashToken(token));
    if (row === undefined || !this.#live(row, purpose)) return undefined;
    return { address: row.address, code: codeForToken(this.#key, token), expiresAt: new Date(row.expires_at) };
  }

  /**
   * Spends the live link of `bindingHash` whose code is `code`. A miss
   * (including a code that is not CODE_LENGTH digits: pass it as typed)
   * counts one wrong try against every live link of the binding, and the
   * try that reaches MAX_CODE_ATTEMPTS deletes them ("voided"). Links of
   * an address `misses` locks for this browser take no code and count no
   * miss.
   */
  consumeCode(bindingHash: string, code: string, purpose: string, misses: CodeMisses): CodeResult {
    return immediately(this.#db, (): CodeResult => {
      // OWASP ASVS 5.0 §6.6.3: past the address's wrong-code budget, this browser (if it erred) takes no more
      // codes for it; the lock is this browser's alone, so another's wrong codes never stop the person's sign-in.
      const rows = this.#sql.ofBinding
        .all(bindingHash, purpose, this.#clock.now().getTime())
        .filter((row) => !misses.codeLocked(row.address, bindingHash));
      // docs/design.md §5 (secrets compared in constant time): every candidate is compared, no early exit at a match.
      let match: Row | undefined;
      for (const row of rows) if (equalSecret(hashCode(this.#key, row.token_hash, code), row.code_hash)) match = row;
      if (match !== undefined && this.#sql.take.get(match.token_hash) !== undefined) return { ok: true, address: match.address };
      if (rows.length === 0) return { ok: false, reason: "wrong" };
      this.#sql.miss.run(bindingHash);
      for (const address of new Set(rows.map((row) => row.address))) misses.recordCodeMiss(address, bindingHash);
      // OWASP ASVS 5.0 §6.6.3: out-of-band codes are rate limited; MAX_CODE_ATTEMPTS wrong codes void the pending sign-in.
      const voided = this.#sql.void.run({ binding: bindingHash, max: MAX_CODE_ATTEMPTS }).changes > 0;
      return { ok: false, reason: voided ? "voided" : "wrong" };
    });
  }

  #live(row: Row, purpose: string): boolean {
    return row.purpose === purpose && this.#clock.now().getTime() < row.expires_at;
  }

  /** Revokes a link by its hash (a link whose email could not be sent). */
  revoke(hash: string): void {
    this.#sql.take.get(hash);
  }

  /** Deletes at most `limit` expired links (one step of `sweepInSteps`); returns how many. */
  Sweep(now: Date, limit: number = SWEEP_STEP): number {
    return this.#sql.sweep.run(now.getTime(), limit).changes;
  }
}
