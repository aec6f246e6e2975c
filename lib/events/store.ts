/*
 * Append-only event streams in the shared SQLite handle. An append names
 * the sequence it expects the stream to be at (0 for a new stream); the
 * check and the insert run in one IMMEDIATE transaction, so of two writers
 * expecting the same sequence, on one connection or many, exactly one
 * succeeds and the other gets `EventConflictError`. Nothing updates or
 * deletes an event.
 *
 * Audit streams are the one place where the writer does not care about
 * the sequence: `appendAudit` appends to `audit:<subject>` at its end.
 */
import { requireTables, type DB, type Statement } from "../db/index.ts";
import { systemClock, type Clock } from "../http/index.ts";
import { EventConflictError, EventsError } from "./errors.ts";
import { AUDIT_STREAM_PREFIX, checkEvent, checkID, type Event, type EventInput } from "./event.ts";

/** Options of `EventStore`. */
export interface EventStoreOptions {
  /** Source of event times. @default systemClock */
  Clock?: Clock;
  /**
   * Called with each event once stored, inside its append's transaction:
   * what it writes commits with the event, and a throw rolls the append
   * back (lib/signin's security notices queue their mail here).
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

interface Row {
  stream: string;
  seq: number;
  type: string;
  data: string;
  actor: string;
  subject: string;
  at: number;
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
  readonly #last: Statement<[string], { seq: number | null }>;
  readonly #insert: Statement<Row>;
  readonly #read: Statement<[string, number, number], Row>;
  readonly #latest: Record<"human" | "agent" | "any", Statement<[string, number], Row>>;

  constructor(db: DB, options: EventStoreOptions = {}) {
    requireTables(db, "events", "events.Schema", ["events"]);
    this.#db = db;
    this.#clock = options.Clock ?? systemClock;
    this.#onAppend = options.OnAppend;
    this.#last = db.prepare("SELECT max(seq) AS seq FROM events WHERE stream = ?");
    this.#insert = db.prepare(
      "INSERT INTO events (stream, seq, type, data, actor, subject, at) VALUES (@stream, @seq, @type, @data, @actor, @subject, @at)",
    );
    this.#read = db.prepare("SELECT * FROM events WHERE stream = ? AND seq >= ? ORDER BY seq LIMIT ?");
    this.#latest = {
      // The partial index of people's events (schema step events/002): without it SQLite walks the primary key past every agent event.
      human: db.prepare("SELECT * FROM events INDEXED BY events_by_people WHERE stream = ? AND actor = 'human' ORDER BY seq DESC LIMIT ?"),
      agent: db.prepare("SELECT * FROM events WHERE stream = ? AND actor <> 'human' ORDER BY seq DESC LIMIT ?"),
      any: db.prepare("SELECT * FROM events WHERE stream = ? ORDER BY seq DESC LIMIT ?"),
    };
  }

  /**
   * Appends one event at sequence `Expected + 1` and returns it. Throws
   * `EventConflictError` (409) when the stream is not at `Expected`, and
   * `EventsError` ERR_EVENTS_INVALID_EVENT (400) for a malformed event;
   * either way nothing is stored.
   */
  append(input: AppendInput): Event {
    checkID("Stream", input.Stream);
    if (!Number.isSafeInteger(input.Expected) || input.Expected < 0) {
      throw new EventsError("ERR_EVENTS_INVALID_EVENT", "append event: Expected must be a non-negative integer", { status: 400 });
    }
    const checked = checkEvent(input);
    return this.#db
      .transaction(() => {
        const actual = this.#last.get(input.Stream)?.seq ?? 0;
        if (actual !== input.Expected) throw new EventConflictError(input.Stream, input.Expected, actual);
        return this.#write(input.Stream, actual + 1, checked);
      })
      .immediate();
  }

  /**
   * Appends one event at the end of `Subject`'s audit stream
   * (`auditStream(Subject)`), whatever its sequence. Throws `EventsError`
   * ERR_EVENTS_INVALID_EVENT (400) for a malformed event.
   */
  appendAudit(input: EventInput): Event {
    checkID("Subject", input.Subject);
    const stream = auditStream(input.Subject);
    const checked = checkEvent(input);
    return this.#db.transaction(() => this.#write(stream, (this.#last.get(stream)?.seq ?? 0) + 1, checked)).immediate();
  }

  /**
   * Runs `fn` in one IMMEDIATE transaction on the store's handle and
   * returns its result: the caller's writes and the events it appends
   * inside commit together, or, when anything in `fn` throws, none of them
   * does (README "A write and its event"). `fn` must be synchronous; an
   * append inside it joins the transaction.
   */
  transaction<T>(fn: () => T): T {
    return this.#db.transaction(fn).immediate();
  }

  #write(stream: string, seq: number, checked: ReturnType<typeof checkEvent>): Event {
    const row: Row = { stream, seq, ...checked, at: this.#clock.now().getTime() };
    this.#insert.run(row);
    const event = toEvent(row);
    this.#onAppend?.(event);
    return event;
  }

  /**
   * Returns the events of `stream` from sequence `from` (inclusive), in
   * order, at most `limit` (capped at `MAX_READ`). Throws `EventsError`
   * ERR_EVENTS_INVALID_EVENT (400) for a malformed stream id or bound.
   */
  read(stream: string, from = 1, limit: number = MAX_READ): Event[] {
    checkID("Stream", stream);
    if (!Number.isSafeInteger(from) || from < 1 || !Number.isSafeInteger(limit) || limit < 1) {
      throw new EventsError("ERR_EVENTS_INVALID_EVENT", "read events: from and limit must be positive integers", { status: 400 });
    }
    return this.#read.all(stream, from, Math.min(limit, MAX_READ)).map(toEvent);
  }

  /**
   * Returns the newest events of `stream`, newest first, at most `limit`
   * (capped at `MAX_READ`); with `by`, only those of people (actor
   * "human") or only those of agents (any other actor), so a page can show
   * the two apart and a flood of one never hides the other. Throws
   * `EventsError` ERR_EVENTS_INVALID_EVENT (400) for a malformed stream id
   * or limit.
   */
  latest(stream: string, limit: number, by?: "human" | "agent"): Event[] {
    checkID("Stream", stream);
    if (!Number.isSafeInteger(limit) || limit < 1) {
      throw new EventsError("ERR_EVENTS_INVALID_EVENT", "read latest events: limit must be a positive integer", { status: 400 });
    }
    return this.#latest[by ?? "any"].all(stream, Math.min(limit, MAX_READ)).map(toEvent);
  }

  /** Returns the last sequence of `stream`: 0 when it has no events. */
  version(stream: string): number {
    checkID("Stream", stream);
    return this.#last.get(stream)?.seq ?? 0;
  }
}
