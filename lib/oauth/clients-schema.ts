/*
 * The table of RFC 7591 registrations (a metadata document's client has no row): `registered_by` is the registering
 * address's `clientKey`, for the limit; `last_used_at` moves with each use, for the idle expiry. Times are Unix ms.
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
