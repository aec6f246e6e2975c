/*
 * Emailed links (SPEC §3.2). A link's token is stored only hashed, with
 * its purpose, address and expiry. It is consumed by one atomic
 * `DELETE ... RETURNING`: the presented token is spent whether it was
 * valid, of the wrong purpose, unknown or expired, and every failure is
 * the same `undefined`, so nothing distinguishes the causes.
 */
import type { DB } from "../db/index.ts";
import type { Clock } from "../http/index.ts";
import { HashToken, NewToken } from "../session/index.ts";

/** Lifetime of an emailed link: 15 minutes. */
export const LINK_TTL: number = 15 * 60 * 1000;

/** The purpose of sign-in links. */
export const PURPOSE_SIGNIN: string = "signin";

/** The store of emailed links. */
export class Links {
  readonly #clock: Clock;
  readonly #ttl: number;
  readonly #insert;
  readonly #consume;
  readonly #delete;
  readonly #sweep;

  constructor(db: DB, clock: Clock, ttl: number = LINK_TTL) {
    this.#clock = clock;
    this.#ttl = ttl;
    this.#insert = db.prepare("INSERT INTO signin_links (token_hash, purpose, address, expires_at) VALUES (?, ?, ?, ?)");
    this.#consume = db.prepare<[string], { purpose: string; address: string; expires_at: number }>(
      "DELETE FROM signin_links WHERE token_hash = ? RETURNING purpose, address, expires_at",
    );
    this.#delete = db.prepare("DELETE FROM signin_links WHERE token_hash = ?");
    this.#sweep = db.prepare("DELETE FROM signin_links WHERE expires_at <= ?");
  }

  /** Creates a link for `address`; returns the token (to email) and its hash (to revoke). */
  Create(address: string, purpose: string): { token: string; hash: string } {
    const token = NewToken();
    const hash = HashToken(token);
    this.#insert.run(hash, purpose, address, this.#clock.now().getTime() + this.#ttl);
    return { token, hash };
  }

  /** Spends `token`; returns the address when it was live and of `purpose`, else undefined. */
  Consume(token: string, purpose: string): string | undefined {
    const row = this.#consume.get(HashToken(token));
    if (row === undefined || row.purpose !== purpose) return undefined;
    if (this.#clock.now().getTime() >= row.expires_at) return undefined;
    return row.address;
  }

  /** Revokes a link by its hash (a link whose email could not be sent). */
  Revoke(hash: string): void {
    this.#delete.run(hash);
  }

  /** Deletes expired links; returns how many. */
  Sweep(now: Date): number {
    return this.#sweep.run(now.getTime()).changes;
  }
}
