/*
 * The table of dynamically registered clients (RFC 7591), as a named
 * schema step (lib/db `Step`). Clients known by a metadata document have no
 * row: their document is the registration. Times are Unix milliseconds.
 * `registered_by` is the registering client's address key (`clientKey`: an
 * IPv4 address or an IPv6 /64), kept for the per-address registration
 * limit; `last_used_at` starts at registration and moves with each use, and
 * a row unused for REGISTRATION_IDLE_TTL is swept.
 */
import type { Step } from "../db/index.ts";

/** Schema steps of the registered OAuth clients; oauth's own `Schema` merges them. */
export const ClientsSchema: readonly Step[] = [
  {
    Name: "oauth/002-clients",
    SQL: `CREATE TABLE oauth_clients (
  client_id TEXT PRIMARY KEY,
  client_name TEXT,
  redirect_uris TEXT NOT NULL,
  grant_types TEXT NOT NULL,
  registered_by TEXT,
  issued_at INTEGER NOT NULL,
  last_used_at INTEGER NOT NULL
) STRICT;
CREATE INDEX oauth_clients_registered_by ON oauth_clients (registered_by, issued_at);
CREATE INDEX oauth_clients_last_used_at ON oauth_clients (last_used_at);`,
  },
];
