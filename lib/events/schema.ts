/*
 * The events schema (lib/db `Step`s): one table for every stream, keyed by (stream, seq), so no writer can overwrite an
 * event. Times are Unix ms; data is JSON text.
 */
import type { Step } from "../db/index.ts";
import { chainExisting } from "./chain.ts";

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
  {
    // A person's events in other streams are found by subject (history.ts, the erasure). The index was account's step
    // account/002-events-subject until issue 37 (one owner per table): its index goes, its record is forgotten.
    Name: "events/004-subject-index",
    SQL: `DROP INDEX IF EXISTS account_events_subject;
CREATE INDEX events_by_subject ON events (subject);`,
    Run: () => ["account/002-events-subject"],
  },
  {
    // The hash chain (chain.ts, README "The chain"): each event's link to the one before it in its stream, filled in
    // for the events already there; `erased` names the erasure that kept an event's place but not its content.
    Name: "events/005-chain",
    SQL: `ALTER TABLE events ADD COLUMN prev_hash BLOB CHECK (length(prev_hash) = 32);
ALTER TABLE events ADD COLUMN hash BLOB CHECK (length(hash) = 32);
ALTER TABLE events ADD COLUMN erased INTEGER;
CREATE INDEX events_erased ON events (erased) WHERE erased IS NOT NULL;`,
    Run: (db) => {
      chainExisting(db, Date.now());
      return [];
    },
  },
];
