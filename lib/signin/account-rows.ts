/*
 * The sign-in module's rows of a person (lib/db `AccountRows`): links (dropped by a move: mailed to the old
 * address), notices, devices, and the rate buckets `addr:<address>`, `code:<address>[:<browser>]` (rate.ts).
 */
import type { DB } from "../db/index.ts";
import { keysetPages, tableRows, type AccountRows } from "../db/index.ts";

/** One account as sign-in knows it: the address and when it first and last signed in (ms). */
export interface SigninAccount {
  Address: string;
  FirstSignin: number;
  LastSignin: number;
}

/** Sign-in's `AccountRows`, and what lib/operators reads of them: accounts by address prefix, a person's language. */
export interface SigninRows extends AccountRows {
  /** Up to `limit` accounts whose address starts with `prefix`, after `after` (undefined: from the first), in address order. */
  find(prefix: string, after: string | undefined, limit: number): SigninAccount[];
  /** The locale of the device the person signed in from last (security notices' devices), or undefined. */
  localeOf(subject: string): string | undefined;
}

/** The person's sign-in rows as lib/account moves, exports and erases them. */
export function accountRows(db: DB): SigninRows {
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
  // A prefix is a range of the primary key (every address starting with it sorts between it and it + U+FFFF), so paging
  // reads along the index: no scan, whatever the number of accounts.
  const find = db.prepare<{ from: string; prefix: string; limit: number; first: number }, SigninAccount>(
    `SELECT address AS Address, first_signin_at AS FirstSignin, last_signin_at AS LastSignin FROM signin_accounts
WHERE (address > @from OR (@first = 1 AND address = @from)) AND address < @prefix || char(65535) ORDER BY address LIMIT @limit`,
  );
  const locale = db
    .prepare<[string], string>("SELECT locale FROM signin_notice_devices WHERE subject = ? ORDER BY last_seen DESC LIMIT 1")
    .pluck();
  return {
    find: (prefix, after, limit) =>
      find.all(
        after === undefined || after < prefix ? { from: prefix, prefix, limit, first: 1 } : { from: after, prefix, limit, first: 0 },
      ),
    localeOf: (subject) => locale.get(subject),
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
