/*
 * The teams module's schema, as named steps (lib/db `Step`). Times are
 * Unix milliseconds. A team's id is random (12 base64url characters), never
 * a count that would tell how many teams there are. `team_members` holds
 * one row per person per team, the person by their session subject (their
 * address). `team_invitations` holds only a link's SHA-256; the row stays
 * after it is accepted or revoked (its `created_at` is a take of the
 * invitation limits) until it expires and the sweep deletes it.
 */
import type { Step } from "../db/index.ts";

/** Schema steps of the teams module. */
export const Schema: readonly Step[] = [
  {
    Name: "teams/001-teams",
    SQL: `CREATE TABLE teams (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  created_at INTEGER NOT NULL
) STRICT;
CREATE TABLE team_members (
  team TEXT NOT NULL,
  subject TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member', 'viewer')),
  joined_at INTEGER NOT NULL,
  PRIMARY KEY (team, subject)
) STRICT, WITHOUT ROWID;
CREATE INDEX team_members_subject ON team_members (subject, team);
CREATE TABLE team_invitations (
  id TEXT PRIMARY KEY,
  token_hash TEXT NOT NULL UNIQUE,
  team TEXT NOT NULL,
  address TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member', 'viewer')),
  inviter TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  accepted_at INTEGER,
  revoked_at INTEGER
) STRICT;
CREATE INDEX team_invitations_team ON team_invitations (team, created_at);
CREATE INDEX team_invitations_inviter ON team_invitations (inviter, created_at);
CREATE INDEX team_invitations_address ON team_invitations (address);
CREATE INDEX team_invitations_expires_at ON team_invitations (expires_at);`,
  },
  {
    // Team events name a person by this key, not their address (store.ts): a deletion drops the row, the key then names no one.
    Name: "teams/002-people",
    SQL: `CREATE TABLE team_people (
  subject TEXT PRIMARY KEY,
  key TEXT NOT NULL UNIQUE
) STRICT;`,
  },
];
