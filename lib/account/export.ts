/*
 * The export: one JSON document of everything the database holds about a
 * person, written to the response piece by piece, never built whole in
 * memory (issue 36: whole tables read with `.all()` and stringified in one
 * piece froze the server).
 *
 * Each module reads its own tables (lib/db `AccountRows.export`),
 * in keyset pages (by primary key, else rowid): at most EXPORT_PAGE rows,
 * cut short once the page's text reaches DOWNLOAD_PIECE characters. A page
 * is read with `.iterate()` and the iterator closed before its text is
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
 * latch's tables show only columns that are no token hash, secret or key
 * material; an application's resource every column. Times are Unix
 * milliseconds as stored; binary columns are base64url. Events are the
 * person's history (lib/events: their audit stream and those it continues
 * across changes of address) and every event whose subject is the person,
 * with `data` as the JSON object it is.
 */
import type { ServerResponse } from "node:http";
import { endChunks, writeChunk } from "../internal/index.ts";
import { type RowPages } from "../db/index.ts";
import type { Records } from "./records.ts";

export { EXPORT_PAGE } from "../db/index.ts";

/** The export's format name. */
export const EXPORT_FORMAT = "latch.account-export.v1";

/** Writes `subject`'s export to `res` (status and headers already set by the caller), and ends it. */
export async function writeExport(res: ServerResponse, records: Records, subject: string, now: Date): Promise<void> {
  let open = `{"format":${JSON.stringify(EXPORT_FORMAT)},"subject":${JSON.stringify(subject)},"exported_at":${JSON.stringify(now.toISOString())},"tables":{`;
  const { tables, events } = records.export(subject);
  for (const [i, pages] of tables.entries()) {
    if (!(await writeRows(res, pages, `${open}${i === 0 ? "" : ","}${JSON.stringify(pages.Table)}:[`, "]"))) return;
    open = "";
  }
  if (events !== undefined) {
    if (!(await writeRows(res, events, `${open}},"events":[`, ""))) return;
  } else if (!(await writeChunk(res, `${open}},"events":[`))) return;
  await endChunks(res, "]}\n");
}

// Writes `before`, the rows of `read` as JSON values separated by commas, page by page, then `after`; false when the client is gone.
async function writeRows(res: ServerResponse, pages: RowPages, before: string, after: string): Promise<boolean> {
  let text = before;
  let key: unknown[] | undefined;
  for (let first = true; first || key !== undefined; first = false) {
    const page = pages.page(key);
    text += (first || page.text === "" ? "" : ",") + page.text;
    key = page.next;
    if (key === undefined) text += after;
    if (!(await writeChunk(res, text))) return false;
    text = "";
  }
  return true;
}
