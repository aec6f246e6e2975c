/*
 * A person's rows, each module for its own tables (issue 37: one owner per
 * table): lib/account moves, exports and erases a person through this
 * interface. The export reads keyset pages (issue 36), each iterator closed
 * before its text is returned, so no statement is open across a socket's drain.
 */
import { DOWNLOAD_PIECE } from "../internal/index.ts";
import type { DB } from "./handle.ts";

/** One table's rows of a person, read page by page for the export. */
export interface RowPages {
  /** The table the rows come from: the export's key. */
  readonly Table: string;
  /** The page after `key` (undefined: the first): its rows' JSON joined by commas, and the key to read on from (undefined after the last row). */
  page(key: unknown[] | undefined): { text: string; next: unknown[] | undefined };
}

/** What a module does with its own rows of one person, inside the caller's transaction (all or nothing). */
export interface AccountRows {
  /** Whether rows here make `address` an account (a change of address to it is refused). */
  isAccount?(address: string): boolean;
  /**
   * Moves the person's rows from `from` to `to`; pending things of `from`
   * (a link, a half-finished sign-in) are deleted. `merge` (an undo, whose
   * `to` may hold an account made since): a row that can exist once per
   * person keeps `from`'s and the other is deleted (SQLite `UPDATE OR
   * REPLACE`); every other row of `to` stays.
   */
  move(from: string, to: string, merge: boolean): void;
  /** Ends what acts for `subject` besides sessions (an undo): revokes, declines; returns how many rows it changed. */
  endAccess?(subject: string, now: number): number;
  /** Ends what acts for every person besides sessions (an operator's incident action): `endAccess` for all; how many rows. */
  endEveryone?(now: number): number;
  /** The person's rows for the export, one reader per table; never a secret, a token's hash or key material. */
  export(subject: string): RowPages[];
  /** The event streams that belong to the person's rows (a Mergeable record's `<resource>:<id>`): erased with them. */
  streams?(subject: string): string[];
  /** Deletes the person's rows. */
  erase(subject: string): void;
  /**
   * Rows a deletion keeps because they are others' too (a team's records): names `alias` in place of the person, the
   * pseudonym lib/account gives the deleted person's events in other streams. Called after every module's `erase`.
   */
  pseudonymize?(subject: string, alias: string): void;
  /** Why the person may not be deleted yet (a word the application's page explains, e.g. "team_owner"), or undefined. */
  refuseErasure?(subject: string): string | undefined;
}

/** Rows read per query of an export, at most: 500 (fewer once they reach `DOWNLOAD_PIECE` characters). */
export const EXPORT_PAGE: number = 500;

/** What `keysetPages` reads: `SELECT columns FROM table WHERE where`, with named `params`. */
export interface PagedRead {
  table: string;
  /** The columns shown, e.g. `"id, name"` (`"1 AS present"` for a row whose every column is secret). */
  columns: string;
  where: string;
  params: Record<string, unknown>;
  /** A row as the document shows it (the events' `data` parsed). */
  shape?: (row: Record<string, unknown>) => unknown;
}

// The names the page key is selected under, first in each row: with a space, so no plain column name is one of them.
const keyName = (i: number): string => `"latch key ${i}"`;

/** The rows of `read`, in keyset pages by the table's primary key (else rowid); binary columns as base64url. */
export function keysetPages(db: DB, read: PagedRead): RowPages {
  const primary = (db.prepare("SELECT name FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk").all(read.table) as { name: string }[]).map(
    (c) => `"${c.name}"`,
  );
  const keys = primary.length > 0 ? primary : ["rowid"];
  const select = `SELECT ${keys.map((k, i) => `${k} AS ${keyName(i)}`).join(", ")}, ${read.columns} FROM "${read.table}" WHERE (${read.where})`;
  const order = `ORDER BY ${keys.join(", ")} LIMIT ${EXPORT_PAGE}`;
  const first = db.prepare(`${select} ${order}`);
  const next = db.prepare(`${select} AND (${keys.join(", ")}) > (${keys.map((_, i) => `@k${i}`).join(", ")}) ${order}`);
  const shape = read.shape ?? ((row: Record<string, unknown>) => row);
  return {
    Table: read.table,
    page(after) {
      const bound: Record<string, unknown> = { ...read.params };
      after?.forEach((value, i) => (bound[`k${i}`] = value));
      let text = "";
      let rows = 0;
      let last: unknown[] = [];
      // The iterator is closed (by the loop's end, or the return that cuts the page) before anything is awaited.
      for (const selected of (after === undefined ? first : next).iterate(bound) as IterableIterator<Record<string, unknown>>) {
        const row: Record<string, unknown> = {};
        last = [];
        for (const [name, value] of Object.entries(selected)) {
          if (last.length < keys.length) last.push(value);
          else row[name] = Buffer.isBuffer(value) ? value.toString("base64url") : value;
        }
        text += (rows++ === 0 ? "" : ",") + JSON.stringify(shape(row));
        if (text.length >= DOWNLOAD_PIECE) return { text, next: last };
      }
      return { text, next: rows === EXPORT_PAGE ? last : undefined };
    },
  };
}

/** One of a module's tables that holds a person's address in `column`. */
export interface PersonTable {
  table: string;
  column: string;
  /** "move": rows follow the address; "drop": rows are pending things of the old address, deleted by a move. */
  onMove: "move" | "drop";
  /** Rows a move deletes rather than moves (an SQL condition), when some cannot follow. */
  dropOnMove?: string;
  /** Columns an export shows: never a secret, a token's hash or key material. */
  exported: readonly string[];
  /** Rows here make the address an account. */
  account: boolean;
}

/** The `AccountRows` of a module's own `tables`, in deletion order (a referencing row first); a table the schema does not create is skipped. */

export function tableRows(db: DB, all: readonly PersonTable[]): AccountRows {
  const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?");
  const tables = all.filter((t) => exists.all(t.table).length > 0);
  const run = (sql: string, ...params: unknown[]): void => void db.prepare(sql).run(...params);
  return {
    isAccount: (address) =>
      tables.some((t) => t.account && db.prepare(`SELECT 1 FROM "${t.table}" WHERE "${t.column}" = ? LIMIT 1`).all(address).length > 0),
    move(from, to, merge) {
      for (const t of tables) {
        if (t.onMove === "drop") {
          run(`DELETE FROM "${t.table}" WHERE "${t.column}" = ?`, from);
          continue;
        }
        if (t.dropOnMove !== undefined) run(`DELETE FROM "${t.table}" WHERE "${t.column}" = ? AND ${t.dropOnMove}`, from);
        run(`${merge ? "UPDATE OR REPLACE" : "UPDATE"} "${t.table}" SET "${t.column}" = ? WHERE "${t.column}" = ?`, to, from);
      }
    },
    export: (subject) =>
      tables.map((t) => {
        const columns = t.exported.length === 0 ? "1 AS present" : t.exported.map((c) => `"${c}"`).join(", ");
        return keysetPages(db, { table: t.table, columns, where: `"${t.column}" = @s`, params: { s: subject } });
      }),
    erase(subject) {
      for (const t of tables) run(`DELETE FROM "${t.table}" WHERE "${t.column}" = ?`, subject);
    },
  };
}
