/*
 * The session module's rows of a person (lib/db `AccountRows`, which
 * lib/account composes): sessions move with a change of address, are
 * exported without their token hash, and are deleted with the account.
 */
import type { DB } from "../db/index.ts";
import { tableRows, type AccountRows } from "../db/index.ts";

/** The person's sessions as lib/account moves, exports and erases them. */
export function accountRows(db: DB): AccountRows {
  return tableRows(db, [
    {
      table: "sessions",
      column: "subject",
      onMove: "move",
      exported: ["public_id", "method", "auth_time", "created_at", "last_seen", "expires_at", "device"],
      account: true,
    },
  ]);
}
