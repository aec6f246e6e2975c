/*
 * The account schema (lib/db `Step`s), merged after every schema whose tables it moves. A waiting change lives in
 * `account_address_changes` until its link or code confirms it; `account_reversals` keeps only the undo link's hash and
 * the old address sealed (seal.ts), so no column names it in clear. Times are Unix ms.
 */
import type { Step } from "../db/index.ts";

/** Schema steps of the account module. */
export const Schema: readonly Step[] = [
  {
    Name: "account/001-address-changes",
    SQL: `CREATE TABLE account_address_changes (
  subject TEXT NOT NULL,
  new_address TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  PRIMARY KEY (subject, new_address)
) STRICT;
CREATE TABLE account_reversals (
  token_hash TEXT PRIMARY KEY,
  subject TEXT NOT NULL,
  sealed_previous TEXT NOT NULL,
  expires_at INTEGER NOT NULL
) STRICT;
CREATE INDEX account_reversals_subject ON account_reversals (subject);`,
  },
  {
    // The sweep's steps pick expired rows along these indexes (lib/db sweepInSteps), not by scanning the tables.
    Name: "account/003-sweep-expiry",
    SQL: `CREATE INDEX account_address_changes_expires_at ON account_address_changes (expires_at);
CREATE INDEX account_reversals_expires_at ON account_reversals (expires_at);`,
  },
];
