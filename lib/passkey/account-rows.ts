/*
 * The passkey module's rows of a person (lib/db `AccountRows`). User handles
 * and recovery codes are random, not derived from the address, so they move;
 * codes salted with the old address (before passkey/007) and half-finished
 * sign-ins belong to the old address and are dropped.
 */
import type { DB } from "../db/index.ts";
import { tableRows, type AccountRows } from "../db/index.ts";

/**
 * The person's passkeys, recovery codes and user handle as lib/account moves, exports and erases them; ending a
 * person's access (a suspension, an undo) or everyone's drops half-finished sign-ins, so none is finished after it.
 */
export function accountRows(db: DB): AccountRows {
  const rows = tableRows(db, [
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
  // As tableRows: a database without passkey's schema holds no half-finished sign-in to end.
  const end = (where: string, ...params: string[]): number =>
    db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'passkey_pending'").get() === undefined
      ? 0
      : db.prepare(`DELETE FROM passkey_pending${where}`).run(...params).changes;
  return { ...rows, endAccess: (subject) => end(" WHERE subject = ?", subject), endEveryone: () => end("") };
}
