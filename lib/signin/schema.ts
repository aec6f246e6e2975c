/*
 * The sign-in schema, as named steps merged AFTER the sessions schema
 * (SPEC §4.1: merge order is apply order; the backfill reads `sessions`).
 * Times are Unix milliseconds.
 */
import type { Step } from "../db/index.ts";

/** Schema steps of the sign-in module. */
export const Schema: readonly Step[] = [
  {
    Name: "signin/001-links",
    SQL: `CREATE TABLE signin_links (
  token_hash TEXT PRIMARY KEY,
  purpose TEXT NOT NULL,
  address TEXT NOT NULL,
  expires_at INTEGER NOT NULL
) STRICT;
CREATE INDEX signin_links_expires_at ON signin_links (expires_at);`,
  },
  {
    Name: "signin/002-rate-events",
    SQL: `CREATE TABLE signin_rate_events (
  bucket TEXT NOT NULL,
  at INTEGER NOT NULL
) STRICT;
CREATE INDEX signin_rate_events_bucket_at ON signin_rate_events (bucket, at);`,
  },
  {
    Name: "signin/003-accounts",
    SQL: `CREATE TABLE signin_accounts (
  address TEXT PRIMARY KEY,
  first_signin_at INTEGER NOT NULL,
  last_signin_at INTEGER NOT NULL
) STRICT;`,
  },
  {
    Name: "signin/004-backfill-accounts",
    SQL: `INSERT OR IGNORE INTO signin_accounts (address, first_signin_at, last_signin_at)
SELECT subject, min(created_at), max(created_at) FROM sessions GROUP BY subject;`,
  },
  {
    // Browser-bound links (README "Scanner-safe links"): the hash of the asking
    // browser's binding cookie, an HMAC of the sign-in code, and wrong tries.
    // Rows from before this step have an empty binding and code: they can no
    // longer be spent, and expire within their old lifetime.
    Name: "signin/005-link-binding-code",
    SQL: `ALTER TABLE signin_links ADD COLUMN binding_hash TEXT NOT NULL DEFAULT '';
ALTER TABLE signin_links ADD COLUMN code_hash TEXT NOT NULL DEFAULT '';
ALTER TABLE signin_links ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
CREATE INDEX signin_links_binding_hash ON signin_links (binding_hash);`,
  },
  {
    // Security notices (notices.ts): the outbox a change writes its notice
    // to inside its transaction, emptied once it committed; and the devices
    // each person signed in from (a hash of the description, at most
    // MAX_KNOWN_DEVICES a person), with the locale they used there.
    Name: "signin/006-notices",
    SQL: `CREATE TABLE signin_notices (
  id INTEGER PRIMARY KEY,
  subject TEXT NOT NULL,
  kind TEXT NOT NULL,
  at INTEGER NOT NULL,
  device TEXT NOT NULL,
  locale TEXT NOT NULL,
  name TEXT NOT NULL
) STRICT;
CREATE TABLE signin_notice_devices (
  subject TEXT NOT NULL,
  device_hash TEXT NOT NULL,
  first_seen INTEGER NOT NULL,
  last_seen INTEGER NOT NULL,
  locale TEXT NOT NULL,
  PRIMARY KEY (subject, device_hash)
) STRICT;`,
  },
];
