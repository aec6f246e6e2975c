/*
 * The agent schema (lib/db `Step`s), merged after the sessions schema: tokens as their SHA-256, revoked and expired
 * rows kept (the audit names them); approvals by binding; an OAuth grant's access tokens; standing approvals. Times
 * are Unix ms.
 */
import type { Step } from "../db/index.ts";

/** Schema steps of the agent module. */
export const Schema: readonly Step[] = [
  {
    Name: "agent/001-agent-tokens",
    SQL: `CREATE TABLE agent_tokens (
  id TEXT PRIMARY KEY,
  token_hash TEXT NOT NULL UNIQUE,
  subject TEXT NOT NULL,
  name TEXT NOT NULL,
  access TEXT NOT NULL CHECK (access IN ('read', 'write')),
  created_at INTEGER NOT NULL,
  last_used_at INTEGER,
  revoked_at INTEGER
) STRICT;
CREATE UNIQUE INDEX agent_tokens_active_name ON agent_tokens (subject, name) WHERE revoked_at IS NULL;`,
  },
  {
    Name: "agent/002-agent-approvals",
    SQL: `CREATE TABLE agent_approvals (
  id TEXT PRIMARY KEY,
  subject TEXT NOT NULL,
  token_id TEXT NOT NULL REFERENCES agent_tokens (id),
  tool TEXT NOT NULL,
  args_hash TEXT NOT NULL,
  args TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'declined', 'spent')),
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
) STRICT;
CREATE INDEX agent_approvals_binding ON agent_approvals (token_id, tool, args_hash);`,
  },
  {
    // Tokens minted before expiry existed get the default lifetime (90 days) from their creation.
    Name: "agent/003-agent-token-expiry",
    SQL: `ALTER TABLE agent_tokens ADD COLUMN expires_at INTEGER NOT NULL DEFAULT 0;
UPDATE agent_tokens SET expires_at = created_at + 7776000000;
CREATE INDEX agent_tokens_subject ON agent_tokens (subject) WHERE revoked_at IS NULL;`,
  },
  {
    // An OAuth grant (latch/oauth) is a token row naming its client; its access tokens are short-lived and bound to one
    // resource (RFC 8707), each a row here referencing the grant, so revoking the grant ends them in the same lookup.
    Name: "agent/004-oauth-grants",
    SQL: `ALTER TABLE agent_tokens ADD COLUMN client_id TEXT;
ALTER TABLE agent_tokens ADD COLUMN client_name TEXT;
ALTER TABLE agent_tokens ADD COLUMN client_host TEXT;
CREATE TABLE agent_access_tokens (
  token_hash TEXT PRIMARY KEY,
  token_id TEXT NOT NULL REFERENCES agent_tokens (id),
  resource TEXT NOT NULL,
  expires_at INTEGER NOT NULL
) STRICT;
CREATE INDEX agent_access_tokens_grant ON agent_access_tokens (token_id);`,
  },
  {
    // The sweep's steps pick expired approvals along this index (lib/db sweepInSteps), not by scanning the table.
    Name: "agent/005-approvals-expiry",
    SQL: "CREATE INDEX agent_approvals_expires_at ON agent_approvals (expires_at);",
  },
  {
    // `voidPending`: a request whose access ended (a team membership) is voided with its reason. The status CHECK is
    // part of the table, so the table is rebuilt (SQLite lang_altertable.html#otheralter); no table references it.
    Name: "agent/006-approvals-voided",
    SQL: `ALTER TABLE agent_approvals RENAME TO agent_approvals_before;
CREATE TABLE agent_approvals (
  id TEXT PRIMARY KEY,
  subject TEXT NOT NULL,
  token_id TEXT NOT NULL REFERENCES agent_tokens (id),
  tool TEXT NOT NULL,
  args_hash TEXT NOT NULL,
  args TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'declined', 'spent', 'voided')),
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  reason TEXT NOT NULL DEFAULT ''
) STRICT;
INSERT INTO agent_approvals (id, subject, token_id, tool, args_hash, args, status, created_at, expires_at)
  SELECT id, subject, token_id, tool, args_hash, args, status, created_at, expires_at FROM agent_approvals_before;
DROP TABLE agent_approvals_before;
CREATE INDEX agent_approvals_binding ON agent_approvals (token_id, tool, args_hash);
CREATE INDEX agent_approvals_expires_at ON agent_approvals (expires_at);`,
  },
  {
    // Standing approvals (standing.ts): a bounded permission for calls like one the person saw. `record` NULL is any
    // record, `fields` NULL any fields (else a JSON array); `args` the approved call's arguments (JSON), whose preview
    // names the record and fields in the list; `ended` says why it ended early (NULL while it may match).
    // `standing_noticed_at` marks the token whose first standing approval was mailed to its person, once.
    Name: "agent/007-standing-approvals",
    SQL: `CREATE TABLE agent_standing_approvals (
  id TEXT PRIMARY KEY,
  subject TEXT NOT NULL,
  token_id TEXT NOT NULL REFERENCES agent_tokens (id),
  tool TEXT NOT NULL,
  context TEXT NOT NULL,
  record TEXT,
  fields TEXT,
  args TEXT NOT NULL,
  remaining INTEGER NOT NULL CHECK (remaining >= 0),
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  ended TEXT
) STRICT;
CREATE INDEX agent_standing_approvals_subject ON agent_standing_approvals (subject, created_at, id);
CREATE INDEX agent_standing_approvals_expires_at ON agent_standing_approvals (expires_at);
ALTER TABLE agent_tokens ADD COLUMN standing_noticed_at INTEGER;`,
  },
  {
    // Waiting calls (README "Waiting calls"): the last waiting-call mail of each person (notices.ts mails at most one an
    // hour), and the index the waiting count of every signed-in page and the notices' sweep read by.
    Name: "agent/008-approval-notices",
    SQL: `CREATE TABLE agent_approval_notices (
  subject TEXT PRIMARY KEY,
  noticed_at INTEGER NOT NULL
) STRICT;
CREATE INDEX agent_approvals_waiting ON agent_approvals (subject, status, expires_at);`,
  },
];
