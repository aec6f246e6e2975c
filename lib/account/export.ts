/*
 * The export: one JSON document of everything the database holds about a
 * person, written to the response piece by piece, never built whole in
 * memory (issue 36: whole tables read with `.all()` and stringified in one
 * piece froze the server).
 *
 * Each table, the events too, is read in keyset pages (by its primary key,
 * else by rowid): at most EXPORT_PAGE rows, cut short once the page's text
 * reaches DOWNLOAD_PIECE characters. A page is
 * read with `.iterate()` and the iterator closed before its text is
 * written: a statement is never left open across the wait for the socket
 * to drain, since the application's one database handle would be busy for
 * every other request meanwhile. When the client is gone, or takes nothing
 * for DOWNLOAD_WRITE_TIMEOUT, the export stops and reads nothing more.
 *
 * Not a snapshot: each page sees the database as it is when it is read.
 * Rows come in key order, each once unless its key changes meanwhile; one
 * added or changed behind the pages already read is not in the export,
 * one added ahead of them is.
 *
 *   { "format": "latch.account-export.v1", "subject": ..., "exported_at": ...,
 *     "tables": { "<table>": [row, ...], ... }, "events": [event, ...] }
 *
 * A latch table shows only its `exported` columns (tables.ts: no token
 * hash, secret or key material); an application's table shows every
 * column. Times are Unix milliseconds as stored; binary columns are
 * base64url. Events are the person's audit stream and every event whose
 * subject is the person, with `data` as the JSON object it is.
 */
import type { ServerResponse } from "node:http";
import type { DB, Statement } from "../db/index.ts";
import { auditStream } from "../events/index.ts";
import { DOWNLOAD_PIECE, endChunks, writeChunk } from "../internal/index.ts";
import type { Tables } from "./tables.ts";

/** Rows read per query of an export, at most: 500 (fewer once they reach `DOWNLOAD_PIECE` characters). */
export const EXPORT_PAGE: number = 500;

/** The export's format name. */
export const EXPORT_FORMAT = "latch.account-export.v1";

const q = (name: string): string => `"${name}"`;

/** One table's rows of the person: `SELECT columns FROM table WHERE where`, `@s` the subject, `@stream` their audit stream. */
interface Read {
  table: string;
  columns: string;
  where: string;
  /** A row as the document shows it (the events' `data` parsed). */
  shape?: (row: Record<string, unknown>) => unknown;
}

/** Writes `subject`'s export to `res` (status and headers already set by the caller), and ends it. */
export async function writeExport(res: ServerResponse, db: DB, tables: Tables, subject: string, now: Date): Promise<void> {
  const params = { s: subject, stream: auditStream(subject) };
  let open = `{"format":${JSON.stringify(EXPORT_FORMAT)},"subject":${JSON.stringify(subject)},"exported_at":${JSON.stringify(now.toISOString())},"tables":{`;
  const reads: Read[] = [
    ...tables.latch.map((t) => ({
      table: t.table,
      columns: t.exported.length === 0 ? "1 AS present" : t.exported.map(q).join(", "),
      where: `${q(t.column)} = @s`,
    })),
    ...tables.owned.map((t) => ({ table: t.Table, columns: "*", where: `${q(t.Column)} = @s` })),
  ];
  if (tables.rate) {
    reads.push({
      table: "signin_rate_events",
      columns: "bucket, at",
      where: "bucket = 'addr:' || @s OR bucket = 'code:' || @s OR substr(bucket, 1, length(@s) + 6) = 'code:' || @s || ':'",
    });
  }
  for (const [i, read] of reads.entries()) {
    if (!(await writeRows(res, db, read, params, `${open}${i === 0 ? "" : ","}${JSON.stringify(read.table)}:[`, "]"))) return;
    open = "";
  }
  if (tables.events) {
    const events: Read = {
      table: "events",
      columns: "*",
      where: "stream = @stream OR subject = @s",
      shape: (row) => ({ ...row, data: JSON.parse(String(row["data"])) as unknown }),
    };
    if (!(await writeRows(res, db, events, params, `${open}},"events":[`, ""))) return;
  } else if (!(await writeChunk(res, `${open}},"events":[`))) return;
  await endChunks(res, "]}\n");
}

// Writes `before`, the rows of `read` as JSON values separated by commas, page by page, then `after`; false when the client is gone.
async function writeRows(
  res: ServerResponse,
  db: DB,
  read: Read,
  params: Record<string, string>,
  before: string,
  after: string,
): Promise<boolean> {
  const pages = pagesOf(db, read);
  let text = before;
  let key: unknown[] | undefined;
  for (let first = true; first || key !== undefined; first = false) {
    const page = readPage(pages, params, key);
    text += (first || page.text === "" ? "" : ",") + page.text;
    key = page.next;
    if (key === undefined) text += after;
    if (!(await writeChunk(res, text))) return false;
    text = "";
  }
  return true;
}

// The names the page key is selected under, first in each row: with a space, so no plain column name is one of them.
const keyName = (i: number): string => `latch key ${i}`;

/** A read's two statements: the first page, and the next ones after a key. */
interface Pages {
  first: Statement<object, Record<string, unknown>>;
  next: Statement<object, Record<string, unknown>>;
  keys: number;
  shape: (row: Record<string, unknown>) => unknown;
}

function pagesOf(db: DB, read: Read): Pages {
  // Keyed by the primary key (lib/manifest's resources have an index on owner and id, so a page is a range of it), else by rowid.
  const primary = (db.prepare("SELECT name FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk").all(read.table) as { name: string }[]).map(
    (c) => q(c.name),
  );
  const keys = primary.length > 0 ? primary : ["rowid"];
  const select = `SELECT ${keys.map((k, i) => `${k} AS ${q(keyName(i))}`).join(", ")}, ${read.columns} FROM ${q(read.table)} WHERE (${read.where})`;
  const order = `ORDER BY ${keys.join(", ")} LIMIT ${EXPORT_PAGE}`;
  return {
    first: db.prepare(`${select} ${order}`),
    next: db.prepare(`${select} AND (${keys.join(", ")}) > (${keys.map((_, i) => `@k${i}`).join(", ")}) ${order}`),
    keys: keys.length,
    shape: read.shape ?? ((row) => row),
  };
}

// One page: its rows' JSON joined by commas, and the key to read on from, or undefined after the last row.
function readPage(
  pages: Pages,
  params: Record<string, string>,
  after: unknown[] | undefined,
): { text: string; next: unknown[] | undefined } {
  const statement = after === undefined ? pages.first : pages.next;
  const bound: Record<string, unknown> = { ...params };
  after?.forEach((value, i) => (bound[`k${i}`] = value));
  let text = "";
  let rows = 0;
  let last: unknown[] = [];
  // The iterator is closed (by the loop's end, or the return that cuts the page) before anything is awaited.
  for (const selected of statement.iterate(bound)) {
    const row: Record<string, unknown> = {};
    last = [];
    for (const [name, value] of Object.entries(selected)) {
      if (last.length < pages.keys) last.push(value);
      else row[name] = Buffer.isBuffer(value) ? value.toString("base64url") : value;
    }
    text += (rows++ === 0 ? "" : ",") + JSON.stringify(pages.shape(row));
    if (text.length >= DOWNLOAD_PIECE) return { text, next: last };
  }
  return { text, next: rows === EXPORT_PAGE ? last : undefined };
}
