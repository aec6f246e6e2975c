/*
 * Append-only event streams in the shared SQLite handle. An append names the sequence it expects the stream at, checked
 * and inserted in one IMMEDIATE transaction, so of two writers expecting the same, exactly one succeeds. Nothing updates
 * or deletes an event but the erasure of a deleted account (history.ts). `appendAudit` appends at the end of `audit:<subject>`.
 */
import { requireTables, type DB, type Statement } from "../db/index.ts";
import { systemClock, type Clock } from "../http/index.ts";
import { EventConflictError } from "./errors.ts";
import { GENESIS, INSERT_EVENT, chainLine, chained, type ChainedRow, type Hashed } from "./chain.ts";
import { AUDIT_STREAM_PREFIX, checkEvent, checkID, invalidEvent, type Event, type EventInput } from "./event.ts";
import {
  ERASURES_STREAM,
  HISTORY_CONTINUED_FROM,
  HISTORY_CONTINUES,
  HISTORY_ERASED,
  HISTORY_TYPE_PREFIX,
  eraseHistory,
  historyOf,
  historyPages,
  type HistoryPart,
  type OtherEvents,
} from "./history.ts";
import type { RowPages } from "../db/index.ts";
import { immediately } from "../internal/index.ts";

/** Options of `EventStore`. */
export interface EventStoreOptions {
  /** Source of event times. @default systemClock */
  Clock?: Clock;
  /**
   * Called with each event once stored, inside its append's transaction: what it writes commits with the event, and a
   * throw rolls the append back (lib/signin's security notices queue their mail here).
   */
  OnAppend?: (event: Event) => void;
}

/** The fields of `append`. */
export interface AppendInput extends EventInput {
  /** The stream to append to. */
  Stream: string;
  /** The stream's current last sequence as the caller read it; 0 for a new stream. */
  Expected: number;
}

/** The most events one `read` returns. */
export const MAX_READ: number = 1000;

/** Returns the id of `subject`'s audit stream; any valid subject's fits the stream id limit. */
export function auditStream(subject: string): string {
  return AUDIT_STREAM_PREFIX + subject;
}

/** An event's row as stored, the columns its hash covers (chain.ts). */
type Row = Hashed;

/** A stream's last event: its sequence and hash (null only for a row written around the store, which the verifier reports). */
interface Last {
  seq: number;
  hash: Buffer | null;
}

function toEvent(row: Row): Event {
  return Object.freeze({
    Stream: row.stream,
    Seq: row.seq,
    Type: row.type,
    Data: JSON.parse(row.data) as Record<string, unknown>,
    Actor: row.actor,
    Subject: row.subject,
    At: new Date(row.at),
  });
}

/**
 * The event store. Apply `Schema` first.
 *
 * @example
 * const events = new EventStore(db);
 * const e = events.append({ Stream: "invoice:7", Expected: 0, Type: "invoice.created",
 *   Data: { total: 12 }, Actor: humanActor(), Subject: "ada@example.com" });
 * events.read("invoice:7", 1); // [e]
 */
export class EventStore {
  readonly #db: DB;
  readonly #clock: Clock;
  readonly #onAppend: ((event: Event) => void) | undefined;
  readonly #last: Statement<[string], Last>;
  readonly #insert: Statement<ChainedRow>;
  readonly #read: Statement<[string, number, number], Row>;
  readonly #latest: Record<"human" | "agent" | "any", Statement<[string, number], Row>>;
  readonly #part: Record<"human" | "agent" | "any", Statement<[string, number, number, number], Row>>;

  constructor(db: DB, options: EventStoreOptions = {}) {
    requireTables(db, "events", "events.Schema", ["events"]);
    this.#db = db;
    this.#clock = options.Clock ?? systemClock;
    this.#onAppend = options.OnAppend;
    // One read of the primary key's last entry gives both the sequence and the hash the next event links to.
    this.#last = db.prepare("SELECT seq, hash FROM events WHERE stream = ? ORDER BY seq DESC LIMIT 1");
    this.#insert = db.prepare(INSERT_EVENT);
    // A stream's sequences run 1, 2, 3... with no gap (an append takes the next; only whole streams are deleted), so "at most
    // n from `from`" is the range [from, from + n), not a LIMIT: SQLite prepares a statement with a bound LIMIT again each
    // time it is bound (BENCHMARKS.md (o)), and a record's page reads its history here.
    this.#read = db.prepare("SELECT * FROM events WHERE stream = ? AND seq >= ? AND seq < ? ORDER BY seq");
    this.#latest = {
      // The partial index of people's events (schema step events/002): without it SQLite walks the primary key past every agent event.
      human: db.prepare("SELECT * FROM events INDEXED BY events_by_people WHERE stream = ? AND actor = 'human' ORDER BY seq DESC LIMIT ?"),
      agent: db.prepare("SELECT * FROM events WHERE stream = ? AND actor <> 'human' ORDER BY seq DESC LIMIT ?"),
      any: db.prepare("SELECT * FROM events WHERE stream = ? ORDER BY seq DESC LIMIT ?"),
    };
    // The same, within one part of a history (history.ts): sequences above the first bound, up to the second.
    const part = (filter: string): Statement<[string, number, number, number], Row> =>
      db.prepare(`SELECT * FROM events ${filter} AND seq > ? AND seq <= ? ORDER BY seq DESC LIMIT ?`);
    this.#part = {
      human: part("INDEXED BY events_by_people WHERE stream = ? AND actor = 'human'"),
      agent: part("WHERE stream = ? AND actor <> 'human'"),
      any: part("WHERE stream = ?"),
    };
  }

  /**
   * Appends one event at sequence `Expected + 1` and returns it. Throws `EventConflictError` (409) when the stream is
   * not at `Expected`, `EventsError` ERR_EVENTS_INVALID_EVENT (400) for a malformed event; nothing is stored then.
   */
  append(input: AppendInput): Event {
    checkID("Stream", input.Stream);
    if (!Number.isSafeInteger(input.Expected) || input.Expected < 0) throw invalidEvent("Expected must be a non-negative integer");
    const checked = this.#check(input);
    return immediately(this.#db, () => {
      const last = this.#last.get(input.Stream);
      const actual = last?.seq ?? 0;
      if (actual !== input.Expected) throw new EventConflictError(input.Stream, input.Expected, actual);
      return this.#write(input.Stream, last, checked);
    });
  }

  /** Appends one event at the end of `auditStream(Subject)`, whatever its sequence; throws as `append` for a malformed one. */
  appendAudit(input: EventInput): Event {
    checkID("Subject", input.Subject);
    const stream = auditStream(input.Subject);
    const checked = this.#check(input);
    return immediately(this.#db, () => this.#write(stream, this.#last.get(stream), checked));
  }

  /**
   * Runs `fn` (synchronous) in one IMMEDIATE transaction on the store's handle and returns its result: the caller's
   * writes and the events appended inside commit together, or none does (README "A write and its event").
   */
  transaction<T>(fn: () => T): T {
    return immediately(this.#db, fn);
  }

  // The history's own types are appended only by this store (history.ts): a forged link would show another person's history.
  #check(input: EventInput): ReturnType<typeof checkEvent> {
    const checked = checkEvent(input);
    if (checked.type.startsWith(HISTORY_TYPE_PREFIX)) throw invalidEvent(`Type ${HISTORY_TYPE_PREFIX}* is the event store's own`);
    return checked;
  }

  // Every append comes here: the event links to `last`, the stream's last event, read in the same transaction.
  #write(stream: string, last: Last | undefined, checked: ReturnType<typeof checkEvent>): Event {
    const row: Row = { stream, seq: (last?.seq ?? 0) + 1, ...checked, at: this.#clock.now().getTime() };
    this.#insert.run(chained(last?.hash ?? GENESIS, row));
    const event = toEvent(row);
    this.#onAppend?.(event);
    return event;
  }

  /** Returns the events of `stream` from sequence `from` on, in order, at most `limit` (capped at `MAX_READ`); 400 for bad bounds. */
  read(stream: string, from = 1, limit: number = MAX_READ): Event[] {
    checkID("Stream", stream);
    if (!Number.isSafeInteger(from) || from < 1 || !Number.isSafeInteger(limit) || limit < 1)
      throw invalidEvent("from and limit must be positive integers", "read events");
    return this.#read.all(stream, from, from + Math.min(limit, MAX_READ)).map(toEvent);
  }

  /**
   * Returns the events of `stream` from sequence `from` on as JSON Lines lines (README "A stream as JSON Lines": the
   * columns as stored and both links in hex, so an outside tool recomputes every hash), at most `MAX_READ`; 400 for bad bounds.
   */
  chainLines(stream: string, from = 1): string[] {
    checkID("Stream", stream);
    if (!Number.isSafeInteger(from) || from < 1) throw invalidEvent("from must be a positive integer", "read events");
    return (this.#read.all(stream, from, from + MAX_READ) as unknown as ChainedRow[]).map(chainLine);
  }

  /**
   * Returns the newest events of `stream`, newest first, at most `limit` (capped at `MAX_READ`); with `by`, only people's
   * (actor "human") or only agents', so a flood of one never hides the other. 400 for a bad stream id or limit.
   */
  latest(stream: string, limit: number, by?: "human" | "agent"): Event[] {
    checkID("Stream", stream);
    if (!Number.isSafeInteger(limit) || limit < 1) throw invalidEvent("limit must be a positive integer", "read latest events");
    return this.#latest[by ?? "any"].all(stream, Math.min(limit, MAX_READ)).map(toEvent);
  }

  /** Returns the last sequence of `stream`: 0 when it has no events. */
  version(stream: string): number {
    checkID("Stream", stream);
    return this.#last.get(stream)?.seq ?? 0;
  }

  /**
   * Returns the head of `stream`: its last sequence and that event's hash (64 hex digits; for an empty stream 0 and
   * the 32 zero bytes a first event links to). Kept elsewhere, it shows later that nothing before it was rewritten.
   */
  head(stream: string): { readonly Seq: number; readonly Hash: string } {
    checkID("Stream", stream);
    const last = this.#last.get(stream);
    return Object.freeze({ Seq: last?.seq ?? 0, Hash: (last?.hash ?? GENESIS).toString("hex") });
  }

  /** The parts of `subject`'s history, oldest first: their audit stream and those it continues (history.ts). */
  historyOf(subject: string): HistoryPart[] {
    checkID("Subject", subject);
    return historyOf(this.#db, subject);
  }

  /**
   * Returns the newest events of `subject`'s history (their audit stream and the streams it continues across changes of
   * address), newest first, at most `limit` (capped at `MAX_READ`); `by` as `latest`.
   */
  latestHistory(subject: string, limit: number, by?: "human" | "agent"): Event[] {
    const parts = this.historyOf(subject);
    const n = Math.min(Math.max(1, Math.trunc(limit)), MAX_READ);
    const events = parts.flatMap((part, i) =>
      this.#part[by ?? "any"].all(part.Stream, part.After, part.Upto ?? Number.MAX_SAFE_INTEGER, n).map((row) => ({ row, i })),
    );
    events.sort((x, y) => y.row.at - x.row.at || y.i - x.i || y.row.seq - x.row.seq);
    return events.slice(0, n).map(({ row }) => toEvent(row));
  }

  /**
   * Links `from`'s history to `to` (a change of address, or its undo): appends `history.continues` to `from`'s audit
   * stream and `history.continued_from` to `to`'s; changes no event.
   */
  continueHistory(from: string, to: string): void {
    this.transaction(() => {
      const left = this.#mark(auditStream(from), HISTORY_CONTINUES, { stream: auditStream(to) }, from);
      this.#mark(auditStream(to), HISTORY_CONTINUED_FROM, { stream: auditStream(from), seq: left.Seq }, to);
    });
  }

  // The store's own events (history.ts), at the end of `stream`; actor human: the person moved, or asked to be deleted.
  #mark(stream: string, type: string, data: object, subject: string): Event {
    return this.#write(stream, this.#last.get(stream), { type, data: JSON.stringify(data), actor: "human", subject });
  }

  /** `subject`'s events for the export (history.ts `historyPages`). */
  historyPages(subject: string): RowPages {
    return historyPages(this.#db, subject);
  }

  /**
   * The one erasure of events, for a deleted account (GDPR Art. 17; see history.ts): deletes `subject`'s history and
   * `streams`, pseudonymises (`alias`) or deletes their events elsewhere, and records it on `latch:erasures` as
   * `history.erased` under `alias`, with counts only.
   */
  eraseHistory(subject: string, streams: readonly string[], others: OtherEvents, alias: string): void {
    this.transaction(() => {
      const erased = eraseHistory(this.#db, subject, streams, others, alias, this.version(ERASURES_STREAM) + 1);
      this.#mark(ERASURES_STREAM, HISTORY_ERASED, { ...erased, others }, alias);
    });
  }
}
