/* The sessions schema, as named steps (lib/db `Step`). Times are Unix milliseconds. */
import type { Step } from "../db/index.ts";

/** Schema steps of the session module; merge them first. */
export const Schema: readonly Step[] = [
  {
    Name: "session/001-sessions",
    SQL: `CREATE TABLE sessions (
  token_hash TEXT PRIMARY KEY,
  subject TEXT NOT NULL,
  method TEXT NOT NULL,
  auth_time INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  last_seen INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
) STRICT;
CREATE INDEX sessions_subject ON sessions (subject);
CREATE INDEX sessions_expires_at ON sessions (expires_at);`,
  },
  {
    // A public, non-secret id per session (the token hash is the row key and
    // must not reach a page), and the short device description of its list.
    Name: "session/002-public-id-device",
    SQL: `ALTER TABLE sessions ADD COLUMN public_id TEXT;
ALTER TABLE sessions ADD COLUMN device TEXT NOT NULL DEFAULT '';
UPDATE sessions SET public_id = lower(hex(randomblob(16)));
CREATE UNIQUE INDEX sessions_public_id ON sessions (public_id);`,
  },
  {
    // Sweep finds idle sessions by last_seen as it finds expired ones by
    // expires_at, without reading the whole table (issue 27); last_seen is
    // written at most once per TouchInterval, so the index costs little.
    Name: "session/003-last-seen",
    SQL: "CREATE INDEX sessions_last_seen ON sessions (last_seen);",
  },
];
