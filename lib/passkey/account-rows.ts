/*
 * The passkey module's rows of a person (lib/db `AccountRows`, which
 * lib/account composes). WebAuthn user handles are random, not derived
 * from the address, so they move; recovery codes carry a random salt per
 * set (schema step passkey/007) and move too, but a set stored before that
 * step was salted with the old address and is dropped by a move.
 * Half-finished sign-ins (`passkey_pending`) belong to the old address.
 */
import type { DB } from "../db/index.ts";
import { tableRows, type AccountRows } from "../db/index.ts";

/** The person's passkeys, recovery codes and user handle as lib/account moves, exports and erases them. */
export function accountRows(db: DB): AccountRows {
  return tableRows(db, [
    {
      table: "passkey_credentials",
      column: "subject",
      onMove: "move",
      exported: ["id", "name", "created_at", "last_used_at"],
      account: true,
    },
    { table: "passkey_pending", column: "subject", onMove: "drop", exported: ["first_method", "expires_at"], account: false },
    {
      table: "passkey_recovery_codes",
      column: "subject",
      onMove: "move",
      dropOnMove: "salt = ''",
      exported: ["created_at"],
      account: true,
    },
    { table: "passkey_user_handles", column: "subject", onMove: "move", exported: [], account: true },
  ]);
}
