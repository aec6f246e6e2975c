/*
 * An application's resources' rows of a person (lib/db `AccountRows`, which lib/account composes): the records of
 * every user-scoped resource. A move re-owns them and re-tags their search rows (search.ts); each record's event stream
 * `<resource>:<id>` is erased with it. A team resource's records are the team's: the person's authorship of them moves
 * with the address and is in the export; a deletion keeps them, `author` the person's pseudonym as in their events
 * (lib/events `eraseHistory`). An unscoped resource's records are nobody's and stay.
 *
 * Attachments (attachments.ts) follow their records: the export holds their rows (metadata; the bytes are downloaded from
 * the records), a move re-owns them, a deletion deletes the rows and files of the person's own records; a team record's
 * file stays, its uploader the person's pseudonym.
 */
import type { DB } from "../db/index.ts";
import { keysetPages, type AccountRows } from "../db/index.ts";
import type { Resource } from "./resource.ts";
import { ATTACHMENT_EXPORT_COLUMNS, removeRows } from "./attachments.ts";
import { isOwned, isTeamScoped } from "./scope.ts";
import { ownerTag } from "./search.ts";

/** The records of `resources` (their schemas applied) as lib/account moves, exports and erases them. */
export function accountRows(db: DB, resources: readonly Resource[]): AccountRows {
  const owned = resources.filter(isOwned).map((r) => r.Name);
  const authored = resources.filter(isTeamScoped).map((r) => r.Name);
  const exists = db.prepare<[string], string>("SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?").pluck();
  const indexed = owned.filter((name) => exists.get(`${name}_search`) !== undefined);
  const run = (sql: string, ...params: unknown[]): void => void db.prepare(sql).run(...params);
  // Asked when used: the table comes with the first mounted resource with a File field (files.ts), maybe after this.
  const files = (): boolean => exists.get("manifest_attachments") !== undefined;
  // A team record's author becomes `to` (a new address, or the deleted person's pseudonym); its search row is the team's.
  const reattribute = (from: string, to: string): void => {
    for (const name of authored) run(`UPDATE "${name}" SET author = ? WHERE author = ?`, to, from);
    if (files()) run("UPDATE manifest_attachments SET person = ? WHERE person = ?", to, from);
  };
  return {
    isAccount: (address) => owned.some((name) => db.prepare(`SELECT 1 FROM "${name}" WHERE owner = ? LIMIT 1`).get(address) !== undefined),
    move(from, to, merge) {
      for (const name of owned) {
        // Tag first, while the rows still name `from` (a merge keeps `to`'s own rows as they are): the tag is 3 characters.
        if (indexed.includes(name)) {
          run(
            `UPDATE "${name}_search" SET body = ? || substr(body, 4) WHERE rowid IN (SELECT rowid FROM "${name}" WHERE owner = ?)`,
            ownerTag(to),
            from,
          );
        }
        run(`${merge ? "UPDATE OR REPLACE" : "UPDATE"} "${name}" SET owner = ? WHERE owner = ?`, to, from);
      }
      if (files()) run("UPDATE manifest_attachments SET owner = ? WHERE owner = ?", to, from);
      reattribute(from, to);
    },
    export: (subject) => [
      ...owned.map((name) => keysetPages(db, { table: name, columns: "*", where: "owner = @s", params: { s: subject } })),
      ...authored.map((name) => keysetPages(db, { table: name, columns: "*", where: "author = @s", params: { s: subject } })),
      ...(files()
        ? [
            keysetPages(db, {
              table: "manifest_attachments",
              columns: ATTACHMENT_EXPORT_COLUMNS,
              where: "owner = @s OR person = @s",
              params: { s: subject },
            }),
          ]
        : []),
    ],
    streams: (subject) =>
      owned.flatMap((name) =>
        (db.prepare(`SELECT id FROM "${name}" WHERE owner = ?`).pluck().all(subject) as string[]).map((id) => `${name}:${id}`),
      ),
    erase(subject) {
      for (const name of owned) run(`DELETE FROM "${name}" WHERE owner = ?`, subject);
      // The files of the person's own records go with them; a team's (owner the team) stay with the team's records.
      if (files())
        removeRows(
          db,
          db.prepare<[string], { id: string; path: string }>("SELECT id, path FROM manifest_attachments WHERE owner = ?").all(subject),
        );
    },
    pseudonymize: (subject, alias) => reattribute(subject, alias),
  };
}
