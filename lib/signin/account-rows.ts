/*
 * The sign-in module's rows of a person (lib/db `AccountRows`): links (dropped by a move: mailed to the old
 * address), notices, devices, and the rate buckets `addr:<address>`, `code:<address>[:<browser>]` (rate.ts).
 */
import type { DB } from "../db/index.ts";
import { keysetPages, tableRows, type AccountRows } from "../db/index.ts";

/** The person's sign-in rows as lib/account moves, exports and erases them. */
export function accountRows(db: DB): AccountRows {
  const tables = tableRows(db, [
    {
      table: "signin_accounts",
      column: "address",
      onMove: "move",
      exported: ["address", "first_signin_at", "last_signin_at"],
      account: true,
    },
    { table: "signin_links", column: "address", onMove: "drop", exported: ["purpose", "expires_at"], account: false },
    // Queued notices go to the address the account has when they are sent; known devices follow the person.
    { table: "signin_notices", column: "subject", onMove: "move", exported: ["kind", "at", "device"], account: false },
    { table: "signin_notice_devices", column: "subject", onMove: "move", exported: ["first_seen", "last_seen", "locale"], account: false },
  ]);
  // The address's buckets: `@s` the address, `@p` the prefix of its per-browser code buckets.
  const buckets = "bucket IN ('addr:' || @s, 'code:' || @s) OR substr(bucket, 1, length(@p)) = @p";
  const rekey = db.prepare(
    "UPDATE signin_rate_events SET bucket = CASE WHEN bucket = 'addr:' || @s THEN 'addr:' || @to ELSE 'code:' || @to || substr(bucket, length(@s) + 6) END WHERE " +
      buckets,
  );
  const drop = db.prepare(`DELETE FROM signin_rate_events WHERE ${buckets}`);
  const params = (s: string): { s: string; p: string } => ({ s, p: `code:${s}:` });
  return {
    isAccount: (address) => tables.isAccount?.(address) === true,
    move(from, to, merge) {
      tables.move(from, to, merge);
      rekey.run({ ...params(from), to });
    },
    export: (subject) => [
      ...tables.export(subject),
      keysetPages(db, { table: "signin_rate_events", columns: "bucket, at", where: buckets, params: params(subject) }),
    ],
    erase(subject) {
      tables.erase(subject);
      drop.run(params(subject));
    },
  };
}
