/*
 * The passkey tables (README "Records"), applied after the sessions schema.
 * Secrets (pending tokens, recovery codes, challenge binders) are stored only
 * as SHA-256 hashes.
 */
import type { Step } from "../db/index.ts";

/** The passkey schema steps, in apply order. Never edit a released step; append a new one. */
export const Schema: readonly Step[] = [
  {
    Name: "passkey/001-credentials",
    SQL: `CREATE TABLE passkey_credentials (
  id TEXT PRIMARY KEY,
  subject TEXT NOT NULL,
  public_key BLOB NOT NULL,
  algorithm INTEGER NOT NULL,
  sign_count INTEGER NOT NULL DEFAULT 0,
  transports TEXT NOT NULL DEFAULT '[]',
  backup_eligible INTEGER NOT NULL,
  backup_state INTEGER NOT NULL,
  user_handle BLOB,
  name TEXT NOT NULL DEFAULT '',
  aaguid TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  last_used_at INTEGER
) STRICT;
CREATE INDEX passkey_credentials_subject ON passkey_credentials (subject);`,
  },
  {
    Name: "passkey/002-challenges",
    SQL: `CREATE TABLE passkey_challenges (
  ceremony TEXT NOT NULL CHECK (ceremony IN ('register', 'stepup', 'signin')),
  bound_to TEXT NOT NULL,
  challenge BLOB NOT NULL,
  expires_at INTEGER NOT NULL,
  PRIMARY KEY (ceremony, bound_to)
) STRICT;
CREATE INDEX passkey_challenges_expires ON passkey_challenges (expires_at);`,
  },
  {
    Name: "passkey/003-pending",
    SQL: `CREATE TABLE passkey_pending (
  token_hash TEXT PRIMARY KEY,
  subject TEXT NOT NULL,
  first_method TEXT NOT NULL,
  expires_at INTEGER NOT NULL
) STRICT;
CREATE INDEX passkey_pending_expires ON passkey_pending (expires_at);`,
  },
  {
    Name: "passkey/004-recovery-codes",
    SQL: `CREATE TABLE passkey_recovery_codes (
  subject TEXT NOT NULL,
  code_hash TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (subject, code_hash)
) STRICT;`,
  },
  {
    Name: "passkey/005-user-handles",
    SQL: `CREATE TABLE passkey_user_handles (
  subject TEXT PRIMARY KEY,
  user_handle BLOB NOT NULL UNIQUE
) STRICT;`,
  },
  {
    // Recovery codes were 10-character codes stored as unsalted SHA-256; they are now
    // subject-salted (secrets.ts), so old rows can never match. Dropping them makes
    // RecoveryCodesRemaining report 0 instead of a count of codes that no longer work.
    Name: "passkey/006-recovery-codes-salted",
    SQL: "DELETE FROM passkey_recovery_codes;",
  },
  {
    // A set of codes is salted with 16 random bytes of its own (secrets.ts v2), not with the
    // address, so the codes move with their rows when the address changes (lib/account). Rows
    // from before keep an empty salt and their subject-salted v1 hash; a move drops them.
    Name: "passkey/007-recovery-code-salt",
    SQL: "ALTER TABLE passkey_recovery_codes ADD COLUMN salt TEXT NOT NULL DEFAULT '';",
  },
];
