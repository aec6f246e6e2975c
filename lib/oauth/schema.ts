/*
 * The oauth schema (lib/db `Step`s), merged after the agent schema: codes and refresh tokens name their grant, an
 * `agent_tokens` row, by id and hold no subject; each is stored as its SHA-256 (`HashToken`). Times are Unix ms.
 */
import type { Step } from "../db/index.ts";
import { ClientsSchema } from "./clients-schema.ts";

/** Schema steps of the oauth module: codes and refresh tokens, then the registered clients. */
export const Schema: readonly Step[] = [
  {
    Name: "oauth/001-codes-and-refresh-tokens",
    SQL: `CREATE TABLE oauth_codes (
  code_hash TEXT PRIMARY KEY,
  token_id TEXT NOT NULL REFERENCES agent_tokens (id),
  client_id TEXT NOT NULL,
  redirect_uri TEXT NOT NULL,
  challenge TEXT NOT NULL,
  resource TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  used_at INTEGER
) STRICT;
CREATE INDEX oauth_codes_expiry ON oauth_codes (expires_at);
CREATE TABLE oauth_refresh_tokens (
  token_hash TEXT PRIMARY KEY,
  token_id TEXT NOT NULL REFERENCES agent_tokens (id),
  resource TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  used_at INTEGER
) STRICT;
CREATE INDEX oauth_refresh_tokens_grant ON oauth_refresh_tokens (token_id);`,
  },
  ...ClientsSchema,
];
