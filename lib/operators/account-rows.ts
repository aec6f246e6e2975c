/*
 * The operators module's rows of a person (lib/db `AccountRows`): a suspension follows the address on a move (an undo
 * cannot lift it), is exported with its reason, and is deleted with the account.
 */
import type { DB } from "../db/index.ts";
import { tableRows, type AccountRows } from "../db/index.ts";

/** The person's suspension as lib/account moves, exports and erases it. */
export function accountRows(db: DB): AccountRows {
  return tableRows(db, [
    { table: "operator_suspensions", column: "subject", onMove: "move", exported: ["reason", "suspended_at"], account: false },
  ]);
}
