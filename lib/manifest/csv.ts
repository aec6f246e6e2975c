/*
 * The CSV export of a list (`GET <Route>.csv`, with the list's own query:
 * filters, `q`, `sort`, `dir`): every record the list would show, over all
 * its pages, as RFC 4180 text in UTF-8 with a byte order mark, so a
 * spreadsheet opens it in the right encoding.
 *
 * Streamed: the records are read CSV_CHUNK at a time with the list's
 * keyset (table.ts), each chunk written before the next is read, waiting
 * for the socket to drain whenever the response's buffer is full. Never
 * all rows in memory, and never a statement left open across a wait: the
 * application has one database handle, and an open iterator would hold
 * it busy for every other request until the download ends.
 *
 * Columns: `id`, each field by its name, `created_at`, `updated_at`
 * (ISO 8601). Values as a tool returns them: an amount as a decimal with
 * a point, a yes/no as `true`/`false`, a date as ISO, the rest as stored.
 */
import type { ServerResponse } from "node:http";
import { writeChunk } from "../internal/index.ts";
import { Kind } from "./kinds.ts";
import type { FieldValue } from "./merge.ts";
import { formatMinor } from "./money.ts";
import type { ResourceSpec } from "./spec.ts";
import type { RecordStore } from "./store.ts";
import type { ListQuery, StoredRecord } from "./table.ts";
import { currencyOf } from "./values.ts";

/** Records read per query of an export. */
export const CSV_CHUNK: number = 500;

/**
 * Returns `text` as one CSV field. OWASP "CSV Injection"
 * (https://owasp.org/www-community/attacks/CSV_Injection): a text starting
 * with `=`, `+`, `-`, `@`, a tab or a carriage return is a formula to a
 * spreadsheet, so it gets a leading `'` and opens as text. RFC 4180 §2:
 * a field holding a quote, a comma or a line break is quoted, its quotes
 * doubled.
 */
export function csvField(text: string, number = false): string {
  const safe = !number && /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

// RFC 4180 §2: records end with CRLF.
function row(fields: string[]): string {
  return `${fields.join(",")}\r\n`;
}

/** Writes `owner`'s records of `spec` that `query` lists (all pages, `query.after` ignored) to `res` as CSV. */
export async function writeCSV(
  res: ServerResponse,
  spec: ResourceSpec,
  store: RecordStore,
  owner: string,
  query: ListQuery,
): Promise<void> {
  const fields = spec.Form.Fields;
  // An amount or a whole number is written by latch, never typed as a formula: "-12.50" stays a number.
  const cell = (value: FieldValue, kind: string, currency: string): string => {
    if (value === null) return "";
    if (kind === Kind.Money && typeof value === "number") return csvField(formatMinor(value, currency), true);
    if (kind === Kind.Boolean) return value === 1 ? "true" : "false";
    return csvField(String(value), kind === Kind.Integer);
  };
  const line = (record: StoredRecord): string =>
    row([
      csvField(record.id),
      ...fields.map((f) => cell(record.values[f.Name] ?? null, f.Kind, f.Kind === Kind.Money ? currencyOf(f) : "")),
      new Date(record.created_at).toISOString(),
      new Date(record.updated_at).toISOString(),
    ]);
  res.setHeader("Content-Type", "text/csv; charset=utf-8; header=present");
  res.setHeader("Content-Disposition", `attachment; filename="${spec.Name}.csv"`);
  await writeChunk(res, `\uFEFF${row(["id", ...fields.map((f) => f.Name), "created_at", "updated_at"])}`);
  let after = undefined as ListQuery["after"];
  do {
    if (res.destroyed) return;
    const page = store.list(owner, { ...query, after, limit: CSV_CHUNK });
    await writeChunk(res, page.records.map(line).join(""));
    after = page.next;
  } while (after !== undefined);
  res.end();
}
