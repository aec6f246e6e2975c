/*
 * The rows of one person, everywhere: each module answers for its own (lib/db `AccountRows`: one owner per table), and
 * this file composes them with the person's event history, inside the caller's transaction. A change of address rewrites
 * no event (lib/events links the streams); a deletion is the one erasure of events, recorded there.
 */
import { createHmac } from "node:crypto";
import type { DB } from "../db/index.ts";
import { EventStore, auditStream, type OtherEvents } from "../events/index.ts";
import type { Clock } from "../http/index.ts";
import { deriveKeyV1 } from "../internal/index.ts";
import { tableRows, type AccountRows, type RowPages } from "../db/index.ts";
import { accountRows as passkeyRows } from "../passkey/index.ts";
import { accountRows as sessionRows } from "../session/index.ts";
import { accountRows as signinRows } from "../signin/index.ts";

/** What a deletion does with the person's events in streams other than their own history: latch/events' `OtherEvents`, its one home. */
export type { OtherEvents };

/** The prefix of a deleted person's pseudonym in `events.subject`. */
export const PSEUDONYM_PREFIX = "deleted:";

const PSEUDONYM_LABEL = "latch account pseudonym v1";

/**
 * Returns the stable pseudonym of a deleted `address`: "deleted:" and 22 base64url characters of an HMAC keyed by a key
 * derived from `InstanceKey`, so one person's events keep reading as one person's, and the address cannot be recovered
 * by hashing guesses without the key. Its key is `deriveKeyV1`'s, for good: a pseudonym already written must come out
 * the same for the same address and key.
 */
export function pseudonym(instanceKey: string, address: string): string {
  const key = deriveKeyV1(instanceKey, PSEUDONYM_LABEL);
  return PSEUDONYM_PREFIX + createHmac("sha256", key).update(address).digest("base64url").slice(0, 22);
}

/** The account module's own rows: a waiting change belongs to the old address; a reversal link follows the account. */
function ownRows(db: DB): AccountRows {
  return tableRows(db, [
    { table: "account_address_changes", column: "subject", onMove: "drop", exported: ["new_address", "expires_at"], account: false },
    { table: "account_reversals", column: "subject", onMove: "move", exported: ["expires_at"], account: false },
  ]);
}

/** The rows of one person in one database. */
export class Records {
  readonly #rows: readonly AccountRows[];
  readonly #events: EventStore | undefined;

  /** `more`: the application's rows, in deletion order. */
  constructor(db: DB, more: readonly AccountRows[], clock: Clock) {
    // The application's first (an OAuth code names an agent token, deleted after it); sessions last.
    this.#rows = [...more, passkeyRows(db), signinRows(db), ownRows(db), sessionRows(db)];
    const hasEvents = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'events'").get() !== undefined;
    this.#events = hasEvents ? new EventStore(db, { Clock: clock }) : undefined;
  }

  /** Reports whether `address` holds anything that makes it an account. */
  isAccount(address: string): boolean {
    return this.#rows.some((rows) => rows.isAccount?.(address) === true);
  }

  /**
   * Moves every row of `from` to `to` (call `isAccount(to)` first), and links `from`'s history to `to` (no event
   * changes). `merge`: an undo, whose `to` may hold an account made since (AccountRows `move`).
   */
  move(from: string, to: string, merge = false): void {
    for (const rows of this.#rows) rows.move(from, to, merge);
    this.#events?.continueHistory(from, to);
  }

  /** Ends what acts for `subject` besides sessions (agent tokens, grants, approvals); returns how many rows it changed. */
  endAccess(subject: string, now: number): number {
    return this.#rows.reduce((n, rows) => n + (rows.endAccess?.(subject, now) ?? 0), 0);
  }

  /**
   * The person's rows for the export, table by table, their events and the head of their audit stream, read first
   * (`EventStore.head`; undefined: the database has no events).
   */
  export(subject: string): {
    tables: RowPages[];
    events: RowPages | undefined;
    head: { stream: string; seq: number; hash: string } | undefined;
  } {
    const stream = auditStream(subject);
    const head = this.#events?.head(stream);
    return {
      tables: this.#rows.flatMap((rows) => rows.export(subject)),
      events: this.#events?.historyPages(subject),
      head: head === undefined ? undefined : { stream, seq: head.Seq, hash: head.Hash },
    };
  }

  /** The first module's reason `subject` may not be deleted yet (AccountRows `refuseErasure`), or undefined. */
  refusal(subject: string): string | undefined {
    for (const rows of this.#rows) {
      const reason = rows.refuseErasure?.(subject);
      if (reason !== undefined) return reason;
    }
    return undefined;
  }

  /** Deletes every row of `subject` (rows that stay name `alias`) and erases their events (`others`: their events in other streams). */
  erase(subject: string, others: OtherEvents, alias: string): void {
    const streams = this.#rows.flatMap((rows) => rows.streams?.(subject) ?? []);
    for (const rows of this.#rows) rows.erase(subject);
    for (const rows of this.#rows) rows.pseudonymize?.(subject, alias);
    this.#events?.eraseHistory(subject, streams, others, alias);
  }
}
