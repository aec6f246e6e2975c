/*
 * The export: one JSON document of everything the database holds about a person, written piece by piece, never whole in
 * memory; each module reads its own tables in keyset pages, each statement closed before its text is written (README,
 * Export: the format, the pages, what it is not).
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
  const { tables, events, head } = records.export(subject);
  const chain = head === undefined ? "" : `"head":${JSON.stringify(head)},`;
  let open = `{"format":${JSON.stringify(EXPORT_FORMAT)},"subject":${JSON.stringify(subject)},"exported_at":${JSON.stringify(now.toISOString())},${chain}"tables":{`;
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
