/*
 * The rows of one person, across every table of tables.ts: whether an
 * address is already an account, moving them to a new address, and
 * deleting them. Each operation runs inside the caller's transaction
 * (account.ts), so a change of address or a deletion is all or nothing.
 *
 * Events are the one exception to "nothing updates or deletes an event"
 * (lib/events): the person's audit stream is renamed by a move and
 * deleted by a deletion, and the events other streams hold for them are
 * re-keyed or, on deletion, pseudonymised (or deleted, `OtherEvents`).
 */
import { createHmac } from "node:crypto";
import type { DB } from "../db/index.ts";
import { auditStream } from "../events/index.ts";
import type { Tables } from "./tables.ts";

/** What a deletion does with the person's events in streams other than their audit stream. */
export type OtherEvents = "pseudonymize" | "delete";

/** The prefix of a deleted person's pseudonym in `events.subject`. */
export const PSEUDONYM_PREFIX = "deleted:";

const PSEUDONYM_LABEL = "latch account pseudonym v1";

/**
 * Returns the stable pseudonym of a deleted `address`: "deleted:" and 22
 * base64url characters of an HMAC keyed by a key derived from
 * `InstanceKey`, so one person's events keep reading as one person's,
 * and the address cannot be recovered by hashing guesses without the key.
 */
export function pseudonym(instanceKey: string, address: string): string {
  const key = createHmac("sha256", instanceKey).update(PSEUDONYM_LABEL).digest();
  return PSEUDONYM_PREFIX + createHmac("sha256", key).update(address).digest("base64url").slice(0, 22);
}

const q = (name: string): string => `"${name}"`;

/** The rows of one person in one database. */
export class Records {
  readonly #db: DB;
  readonly #tables: Tables;

  constructor(db: DB, tables: Tables) {
    this.#db = db;
    this.#tables = tables;
  }

  /** Reports whether `address` holds anything that makes it an account. */
  isAccount(address: string): boolean {
    const tables = [
      ...this.#tables.latch.filter((t) => t.account).map((t) => [t.table, t.column] as const),
      ...this.#tables.owned.map((t) => [t.Table, t.Column] as const),
    ];
    return tables.some(
      ([table, column]) => this.#db.prepare(`SELECT 1 FROM ${q(table)} WHERE ${q(column)} = ? LIMIT 1`).get(address) !== undefined,
    );
  }

  /**
   * Moves every row of `from` to `to` (call `isAccount(to)` first):
   * latch's tables and the application's, the audit stream (renamed, any
   * events already under `to` renumbered after it so the history reads as
   * one), the subject of the person's events elsewhere, and the sign-in
   * rate buckets keyed by the address. Pending things of the old address
   * (sign-in links, passkey half-sessions, address changes) are deleted.
   *
   * `merge` (an undo, whose `to` may hold an account made since): where a
   * row of `from` and a row of `to` can exist only once (a primary key or
   * unique index: the sign-in record, the WebAuthn user handle, a known
   * device), the row of `from` is kept and the other deleted (SQLite
   * `UPDATE OR REPLACE`); every other row of `to` stays, joined by `from`'s.
   */
  move(from: string, to: string, merge = false): void {
    const update = merge ? "UPDATE OR REPLACE" : "UPDATE";
    for (const t of this.#tables.latch) {
      if (t.onMove === "drop") {
        this.#db.prepare(`DELETE FROM ${q(t.table)} WHERE ${q(t.column)} = ?`).run(from);
        continue;
      }
      if (t.dropOnMove !== undefined) this.#db.prepare(`DELETE FROM ${q(t.table)} WHERE ${q(t.column)} = ? AND ${t.dropOnMove}`).run(from);
      this.#db.prepare(`${update} ${q(t.table)} SET ${q(t.column)} = ? WHERE ${q(t.column)} = ?`).run(to, from);
    }
    for (const t of this.#tables.owned)
      this.#db.prepare(`${update} ${q(t.Table)} SET ${q(t.Column)} = ? WHERE ${q(t.Column)} = ?`).run(to, from);
    if (this.#tables.events) this.#moveEvents(from, to);
    if (this.#tables.rate) this.#moveBuckets(from, to);
  }

  /**
   * Ends what acts for `subject` besides sessions, by each table's
   * `endOnUndo` rule: agent tokens and OAuth grants revoked, unanswered
   * and unspent approvals declined. Returns how many rows it changed.
   */
  endAccess(subject: string, now: number): number {
    let ended = 0;
    for (const t of this.#tables.latch) {
      if (t.endOnUndo === undefined) continue;
      const { set, live } = t.endOnUndo;
      ended += this.#db
        .prepare(`UPDATE ${q(t.table)} SET ${set} WHERE ${q(t.column)} = @subject AND ${live}`)
        .run({ subject, now }).changes;
    }
    return ended;
  }

  #moveEvents(from: string, to: string): void {
    const [oldStream, newStream] = [auditStream(from), auditStream(to)];
    const last = (this.#db.prepare("SELECT coalesce(max(seq), 0) AS n FROM events WHERE stream = ?").get(oldStream) as { n: number }).n;
    // Events already on the new stream (none for a new account, but audited refusals may be) follow the old history:
    // through negative numbers, so no intermediate row collides with the primary key (stream, seq).
    this.#db.prepare("UPDATE events SET seq = -(seq + ?) WHERE stream = ?").run(last, newStream);
    this.#db.prepare("UPDATE events SET seq = -seq WHERE stream = ? AND seq < 0").run(newStream);
    this.#db.prepare("UPDATE events SET stream = ? WHERE stream = ?").run(newStream, oldStream);
    this.#db.prepare("UPDATE events SET subject = ? WHERE subject = ?").run(to, from);
  }

  // The rate buckets of lib/signin/rate.ts: addr:<address>, code:<address>, code:<address>:<browser>.
  #moveBuckets(from: string, to: string): void {
    this.#db.prepare("UPDATE signin_rate_events SET bucket = ? WHERE bucket = ?").run(`addr:${to}`, `addr:${from}`);
    this.#db.prepare("UPDATE signin_rate_events SET bucket = ? WHERE bucket = ?").run(`code:${to}`, `code:${from}`);
    const prefix = `code:${from}:`;
    this.#db
      .prepare("UPDATE signin_rate_events SET bucket = ? || substr(bucket, ?) WHERE substr(bucket, 1, ?) = ?")
      .run(`code:${to}:`, prefix.length + 1, prefix.length, prefix);
  }

  /**
   * Deletes every row of `subject`: latch's tables and the application's
   * (with the event streams of rows that have them), the audit stream and
   * the rate buckets; their events in other streams are pseudonymised
   * (`pseudonym`) or deleted, as `others` says.
   */
  erase(subject: string, others: OtherEvents, alias: string): void {
    for (const t of this.#tables.owned) {
      if (t.Streams === true && this.#tables.events) {
        const ids = this.#db
          .prepare(`SELECT id FROM ${q(t.Table)} WHERE ${q(t.Column)} = ?`)
          .pluck()
          .all(subject) as string[];
        const drop = this.#db.prepare("DELETE FROM events WHERE stream = ?");
        for (const id of ids) drop.run(`${t.Table}:${id}`);
      }
      this.#db.prepare(`DELETE FROM ${q(t.Table)} WHERE ${q(t.Column)} = ?`).run(subject);
    }
    for (const table of this.#tables.grants) {
      this.#db.prepare(`DELETE FROM ${q(table)} WHERE token_id IN (SELECT id FROM agent_tokens WHERE subject = ?)`).run(subject);
    }
    for (const t of this.#tables.latch) this.#db.prepare(`DELETE FROM ${q(t.table)} WHERE ${q(t.column)} = ?`).run(subject);
    if (this.#tables.events) {
      this.#db.prepare("DELETE FROM events WHERE stream = ?").run(auditStream(subject));
      if (others === "delete") this.#db.prepare("DELETE FROM events WHERE subject = ?").run(subject);
      else this.#db.prepare("UPDATE events SET subject = ? WHERE subject = ?").run(alias, subject);
    }
    if (this.#tables.rate) {
      const prefix = `code:${subject}:`;
      this.#db
        .prepare("DELETE FROM signin_rate_events WHERE bucket IN (?, ?) OR substr(bucket, 1, ?) = ?")
        .run(`addr:${subject}`, `code:${subject}`, prefix.length, prefix);
    }
  }
}
