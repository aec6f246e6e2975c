/*
 * The CSV export of a list (`GET <Route>.csv`, with the list's own query; README "Search and export": CSV, Formulas,
 * Streamed): every record the list would show, as RFC 4180 text in UTF-8 with a byte order mark, read a page at a time
 * with the list's keyset and each page written before the next is read. Never all rows in memory, and never a
 * statement left open across a wait: the application has one database handle.
 */
import type { ServerResponse } from "node:http";
import { DOWNLOAD_PIECE, endChunks, writeChunk } from "../internal/index.ts";
import { Kind } from "./kinds.ts";
import type { FieldValue } from "./merge.ts";
import { formatMinor } from "./money.ts";
import type { References } from "./references.ts";
import type { Field, ResourceSpec } from "./spec.ts";
import type { RecordStore } from "./store.ts";
import type { ListQuery, StoredRecord } from "./table.ts";
import { currencyOf, maxValueBytes } from "./values.ts";

/** Records read per query of an export, at most: 500 (fewer when a record may be long: `csvPage`). */
export const CSV_CHUNK: number = 500;

/**
 * OWASP "CSV Injection" (https://owasp.org/www-community/attacks/CSV_Injection), ASVS 5.0 §1.2.10: a formula character
 * (`=`, `+`, `-`, `@`, tab, CR, NUL) where a spreadsheet may start a cell, at a field's start or after a separator inside
 * it (README "Formulas"), gets a `'` before it and reads as text: `x;=1+1` is written `"x;'=1+1"`. So does one after
 * apostrophes there (`'=1` is written `''=1`), so an import takes exactly one off again (csv-read.ts `unneutralised`).
 */
const FORMULA_START = /(^|[,;\t\r\n])(?='*[=+\-@\t\r\0])/g;

/**
 * Returns `text` as one CSV field, formulas neutralised (`FORMULA_START`) unless it is a `number` latch wrote. RFC 4180
 * §2: a field holding a quote, a comma or a line break is quoted, its quotes doubled; so is one holding a `;` or a tab,
 * the separators of other spreadsheets.
 */
export function csvField(text: string, number = false): string {
  const safe = number ? text : text.replace(FORMULA_START, "$1'");
  return /[",;\t\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/**
 * Records read per query of `spec`'s export: CSV_CHUNK, or fewer when that many of its longest records would pass
 * DOWNLOAD_PIECE characters, so no page holds the event loop long.
 */
export function csvPage(spec: ResourceSpec): number {
  const longest = spec.Form.Fields.reduce((n, f) => n + maxValueBytes(f) + 1, 64);
  return Math.max(1, Math.min(CSV_CHUNK, Math.floor(DOWNLOAD_PIECE / longest)));
}

// RFC 4180 §2: records end with CRLF.
function row(fields: string[]): string {
  return `${fields.join(",")}\r\n`;
}

/** The header of the column beside a Reference field's id holding the referenced record's name: `<field>.name` (no field name holds a dot). */
function nameColumn(field: string): string {
  return `${field}.name`;
}

/**
 * Writes `owner`'s records of `spec` that `query` lists (all pages, `query.after` ignored) to `res` as CSV; each Reference
 * field's id is followed by the name of the record it refers to (`nameColumn`), empty when `owner` may not read it.
 */
export async function writeCSV(
  res: ServerResponse,
  spec: ResourceSpec,
  store: RecordStore,
  owner: string,
  query: ListQuery,
  refs: Pick<References, "recordNames" | "titleOf">,
): Promise<void> {
  const fields = spec.Form.Fields;
  const isReference = (f: Field): boolean => f.Kind === Kind.Reference;
  // An amount or a whole number is written by latch, never typed as a formula: "-12.50" stays a number.
  const cell = (value: FieldValue, kind: string, currency: string): string => {
    if (value === null) return "";
    if (kind === Kind.Money && typeof value === "number") return csvField(formatMinor(value, currency), true);
    if (kind === Kind.Boolean) return value === 1 ? "true" : "false";
    return csvField(String(value), kind === Kind.Integer);
  };
  // A name is text a person typed: formulas neutralised as any.
  const line = (record: StoredRecord, names: Map<string, Map<string, string>>): string =>
    row([
      csvField(record.id),
      ...fields.flatMap((f) => {
        const value = record.values[f.Name] ?? null;
        const shown = cell(value, f.Kind, f.Kind === Kind.Money ? currencyOf(f) : "");
        return isReference(f) ? [shown, csvField(names.get(f.Name)?.get(String(value)) ?? "")] : [shown];
      }),
      new Date(record.created_at).toISOString(),
      new Date(record.updated_at).toISOString(),
    ]);
  res.setHeader("Content-Type", "text/csv; charset=utf-8; header=present");
  res.setHeader("Content-Disposition", `attachment; filename="${spec.Name}.csv"`);
  const header = ["id", ...fields.flatMap((f) => (isReference(f) ? [f.Name, nameColumn(f.Name)] : [f.Name])), "created_at", "updated_at"];
  if (!(await writeChunk(res, `\uFEFF${row(header)}`))) return;
  // A page's longest record holds the longest name of each record it refers to.
  const titles = fields.filter(isReference).flatMap((f) => refs.titleOf(f) ?? []);
  const limit = csvPage({ ...spec, Form: { Fields: [...fields, ...titles] } });
  let after = undefined as ListQuery["after"];
  do {
    const page = store.list(owner, { ...query, after, limit });
    // The client gone, or taking nothing for DOWNLOAD_WRITE_TIMEOUT: nothing more is read.
    // The page's names: one query per Reference field (references.ts `recordNames`).
    const names = refs.recordNames(owner, page.records);
    if (!(await writeChunk(res, page.records.map((r) => line(r, names)).join("")))) return;
    after = page.next;
  } while (after !== undefined);
  await endChunks(res, "");
}
