/*
 * The event store's schema, as named steps (lib/db `Step`). One table for
 * every stream: (stream, seq) is the primary key, so even a writer that
 * skipped the expected-sequence check could never overwrite an event.
 * Times are Unix milliseconds; data is JSON text. A partial index holds
 * the events of people (actor "human"), the few among an agent's many.
 */
import type { Step } from "../db/index.ts";

/** Schema steps of the events module. */
export const Schema: readonly Step[] = [
  {
    Name: "events/001-events",
    SQL: `CREATE TABLE events (
  stream TEXT NOT NULL,
  seq INTEGER NOT NULL,
  type TEXT NOT NULL,
  data TEXT NOT NULL,
  actor TEXT NOT NULL,
  subject TEXT NOT NULL,
  at INTEGER NOT NULL,
  PRIMARY KEY (stream, seq)
) STRICT, WITHOUT ROWID;`,
  },
  {
    // EventStore.latest(stream, n, "human") reads a person's own events without walking past their agents' (any number).
    Name: "events/002-people-index",
    SQL: `CREATE INDEX events_by_people ON events (stream, seq) WHERE actor = 'human';`,
  },
  {
    // A person's history follows its links (history.ts) without walking the rest of each audit stream.
    Name: "events/003-history-index",
    SQL: `CREATE INDEX events_history ON events (stream, seq) WHERE type IN ('history.continues', 'history.continued_from');`,
  },
];
