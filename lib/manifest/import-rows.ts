/*
 * What an import makes of a CSV's rows (README "Import"), the same for a person's upload (import.ts) and an agent's
 * call (import-tool.ts): its header mapped to the resource's fields, each row checked as the form checks its text
 * (values as the export writes them, read in TOOL_LOCALE; references by id or by name; the rules across fields), a
 * batch at a time, and the rows written a batch per transaction.
 */
import { isAgentError } from "../agent/index.ts";
import type { DB } from "../db/index.ts";
import { checkedValues, problemText, refusingWrite, TOOL_LOCALE, type Label } from "./calls.ts";
import { type CSVRow, CSVRefused, IMPORT_COLUMNS_MAX, importCellMax, unneutralised } from "./csv-read.ts";
import { Kind } from "./kinds.ts";
import type { References } from "./references.ts";
import { ruleProblems } from "./rules.ts";
import type { Field, ResourceSpec } from "./spec.ts";
import type { RecordStore, Writer } from "./store.ts";
import { parseValues, REFERENCE_ID_PATTERN, type FieldProblem } from "./values.ts";
import { immediately } from "../internal/index.ts";

/** Rows an import checks and writes together, in one transaction: 500 (a batch's records and events stay small). */
export const IMPORT_BATCH: number = 500;

/** The first rows a preview shows mapped to the fields: 10. */
export const IMPORT_PREVIEW_ROWS: number = 10;

/** The rows with errors a preview lists, at most: 1000 (then how many more); none of them is imported. */
export const IMPORT_ERRORS_SHOWN: number = 1000;

/** The export's columns an import reads and does not store: a new record gets its own id and times. */
const KEPT_APART: readonly string[] = ["id", "created_at", "updated_at"];

/** What a column of the header holds: a field's value, the name of the record a Reference field names, or nothing kept. */
type Role = { field: Field; name: boolean } | { apart: "export" | "file" | "unknown" };

/** The header as the import reads it. */
export interface ImportColumns {
  readonly header: readonly string[];
  readonly roles: readonly Role[];
  /** The header's columns that name no field (each ignored, shown on the preview). */
  readonly unknown: readonly string[];
  /** The fields no column names (each empty in every row). */
  readonly missing: readonly string[];
}

/** One problem of a row: its field ("" for the row as text) and the catalog key saying why. */
export interface RowError {
  readonly field: string;
  readonly problem: FieldProblem;
}

/** A row checked: its line, each field's text as the form would post it (references resolved to ids), and its errors. */
export interface CheckedRow {
  readonly line: number;
  readonly given: Readonly<Record<string, string>>;
  readonly errors: readonly RowError[];
}

/** What an import reads of the references: records by id and by name, a rule's reader, the name field of a target. */
export type ImportRefs = Pick<References, "names" | "named" | "reader" | "titleOf">;

/**
 * The longest cell an import of `spec` reads (csv-read.ts `importCellMax`): of its fields, and of the name fields of
 * the records its Reference fields point to, whose names the export writes beside their ids.
 */
export function cellMaxOf(spec: ResourceSpec, refs: Pick<References, "titleOf">): number {
  const titles = spec.Form.Fields.filter((f) => f.Kind === Kind.Reference).flatMap((f) => refs.titleOf(f) ?? []);
  return importCellMax([...spec.Form.Fields, ...titles]);
}

/** The name column the export writes beside a Reference field's id (csv.ts). */
const nameOf = (column: string): string | undefined => (column.endsWith(".name") ? column.slice(0, -".name".length) : undefined);

/** Reads `header`: each column's role. Throws CSVRefused for a column named twice (which value would win is the ambiguity to refuse). */
export function importColumns(spec: ResourceSpec, header: readonly string[]): ImportColumns {
  const fields = new Map(spec.Form.Fields.map((f) => [f.Name, f]));
  const seen = new Set<string>();
  const roles = header.map((raw): Role => {
    const column = raw.trim();
    const named = JSON.stringify(column.slice(0, 64));
    if (seen.has(column)) throw new CSVRefused("twice", `the column ${named} is named twice`, { column: named });
    seen.add(column);
    const field = fields.get(column) ?? fields.get(nameOf(column) ?? "");
    if (KEPT_APART.includes(column)) return { apart: "export" };
    if (field === undefined || (field.Name !== column && field.Kind !== Kind.Reference)) return { apart: "unknown" };
    // A file comes by its own upload route: an attachment's id names another record's file.
    return field.Kind === Kind.File ? { apart: "file" } : { field, name: field.Name !== column };
  });
  const named = new Set(roles.flatMap((r) => ("field" in r && !r.name ? [r.field.Name] : [])));
  return {
    header,
    roles,
    unknown: header.filter((_, i) => "apart" in roles[i]! && (roles[i] as { apart: string }).apart === "unknown"),
    missing: spec.Form.Fields.filter((f) => f.Kind !== Kind.File && !named.has(f.Name)).map((f) => f.Name),
  };
}

const problem = (key: string, args: Record<string, string | number> = {}): FieldProblem => ({ key, args });

/**
 * Returns what checks a batch of rows for `owner`: each cell's neutralising apostrophe removed (csv-read.ts), its
 * text read by the form's rules; a Reference cell holding the id of a record `owner` may point to is that record, else
 * the record named as the `<field>.name` column (or the cell) says, one query per field and batch.
 */
export function rowChecker(
  spec: ResourceSpec,
  refs: ImportRefs,
  owner: string,
  columns: ImportColumns,
): (rows: readonly CSVRow[]) => CheckedRow[] {
  const stored = { ...spec, Form: { Fields: spec.Form.Fields.filter((f) => f.Kind !== Kind.File) } };
  const references = stored.Form.Fields.filter((f) => f.Kind === Kind.Reference);
  // The bounds a row's text problem names (csv-read.ts).
  const rowArgs = { max: cellMaxOf(spec, refs), columns: IMPORT_COLUMNS_MAX };
  const read = (row: CSVRow) => {
    const entered = new Map<string, string>();
    const names = new Map<string, string>();
    columns.roles.forEach((role, i) => {
      if ("field" in role) (role.name ? names : entered).set(role.field.Name, unneutralised(row.cells[i] ?? ""));
    });
    const extra = row.cells.slice(columns.roles.length).some((c) => c !== "");
    return { row, entered, names, text: row.problem ?? (extra ? "columns" : undefined) };
  };
  return (rows) => {
    const batch = rows.map(read);
    const resolved = new Map<string, { ids: Map<string, string>; byName: Map<string, string[]> }>();
    for (const field of references) {
      const cells = batch.map((r) => r.entered.get(field.Name) ?? "");
      const ids = refs.names(
        owner,
        field,
        cells.filter((c) => REFERENCE_ID_PATTERN.test(c)),
      );
      const wanted = batch.map((r, i) => (ids.has(cells[i]!) ? "" : r.names.get(field.Name) || cells[i]!)).filter((n) => n !== "");
      resolved.set(field.Name, { ids, byName: refs.named(owner, field, wanted) });
    }
    return batch.map(({ row, entered, names, text }) => {
      const errors: RowError[] = text === undefined ? [] : [{ field: "", problem: problem(`resource.import.err.${text}`, rowArgs) }];
      for (const field of references) {
        const { ids, byName } = resolved.get(field.Name)!;
        const cell = entered.get(field.Name) ?? "";
        const name = names.get(field.Name) || cell;
        if (cell === "" && name === "") continue;
        const found = ids.has(cell) ? [cell] : (byName.get(name) ?? []);
        if (found.length === 1) entered.set(field.Name, found[0]!);
        else
          errors.push({
            field: field.Name,
            problem: problem(found.length === 0 ? "resource.err.reference_missing" : "resource.import.err.ambiguous"),
          });
      }
      const parsed = parseValues(stored, entered, TOOL_LOCALE);
      if (!parsed.ok)
        for (const [field, p] of parsed.errors) if (!errors.some((e) => e.field === field)) errors.push({ field, problem: p });
      // README "Rules across fields": weighed on the values the row would store, as the store weighs them again.
      if (parsed.ok && errors.length === 0)
        for (const [field, p] of ruleProblems(spec, parsed.values, refs.reader(owner, parsed.values))) errors.push({ field, problem: p });
      const given = Object.fromEntries(stored.Form.Fields.filter((f) => entered.has(f.Name)).map((f) => [f.Name, entered.get(f.Name)!]));
      return { line: row.line, given, errors };
    });
  };
}

/** The header, then the checked rows a batch (IMPORT_BATCH) at a time. Throws CSVRefused for a file with no header row. */
export async function* checkedBatches(
  source: AsyncIterable<CSVRow>,
  spec: ResourceSpec,
  refs: ImportRefs,
  owner: string,
): AsyncGenerator<{ columns: ImportColumns; rows: CheckedRow[] }> {
  let columns: ImportColumns | undefined;
  let check: ((rows: readonly CSVRow[]) => CheckedRow[]) | undefined;
  let batch: CSVRow[] = [];
  for await (const row of source) {
    if (columns === undefined || check === undefined) {
      columns = importColumns(spec, row.cells);
      check = rowChecker(spec, refs, owner, columns);
      continue;
    }
    batch.push(row);
    if (batch.length < IMPORT_BATCH) continue;
    yield { columns, rows: check(batch) };
    batch = [];
  }
  if (columns === undefined || check === undefined) throw new CSVRefused("no_header", "the file has no header row");
  yield { columns, rows: check(batch) };
}

/** Every row of `rows` (an agent's CSV, read at once) checked as `checkedBatches` checks a file's. */
export function checkedRows(
  rows: readonly CSVRow[],
  spec: ResourceSpec,
  refs: ImportRefs,
  owner: string,
): { columns: ImportColumns; rows: CheckedRow[] } {
  const [header, ...body] = rows;
  if (header === undefined) throw new CSVRefused("no_header", "the text has no header row");
  const columns = importColumns(spec, header.cells);
  const check = rowChecker(spec, refs, owner, columns);
  const checked: CheckedRow[] = [];
  for (let at = 0; at < body.length; at += IMPORT_BATCH) checked.push(...check(body.slice(at, at + IMPORT_BATCH)));
  return { columns, rows: checked };
}

/** What a preview shows: the header, the first rows, the rows with errors (at most IMPORT_ERRORS_SHOWN), and the counts. */
export interface ImportPreview {
  readonly columns: ImportColumns;
  readonly sample: readonly CheckedRow[];
  readonly errors: readonly CheckedRow[];
  readonly rows: number;
  readonly rowsWithErrors: number;
}

/** Reads every row of `source` as `owner`'s import would, writing nothing. */
export async function previewImport(
  source: AsyncIterable<CSVRow>,
  spec: ResourceSpec,
  refs: ImportRefs,
  owner: string,
): Promise<ImportPreview> {
  let columns: ImportColumns | undefined;
  const sample: CheckedRow[] = [];
  const errors: CheckedRow[] = [];
  let rows = 0;
  let rowsWithErrors = 0;
  for await (const batch of checkedBatches(source, spec, refs, owner)) {
    columns = batch.columns;
    for (const row of batch.rows) {
      rows += 1;
      if (sample.length < IMPORT_PREVIEW_ROWS) sample.push(row);
      if (row.errors.length === 0) continue;
      rowsWithErrors += 1;
      // Its line and problems only: a row's text (up to `cellMaxOf` a cell) is not kept for every row in error.
      if (errors.length < IMPORT_ERRORS_SHOWN) errors.push({ line: row.line, given: {}, errors: row.errors });
    }
  }
  return { columns: columns!, sample, errors, rows, rowsWithErrors };
}

/** What an import did: the records created, and the rows skipped (a record refused when written: changed since the preview). */
export interface ImportOutcome {
  imported: number;
  skipped: { line: number; reason: string }[];
}

/** Where an import's records go: a store below the live feed, and what tells the feed of each once its batch committed (live.ts `tellLanded`). */
export interface ImportWrites {
  readonly store: Pick<RecordStore, "create">;
  readonly landed: (who: Writer, id: string, version: number) => void;
}

/** Returns what creates an imported row as `who` through `store`: its text read by the form's rules, refused as a call's write is (calls.ts). */
export function importCreate(
  spec: ResourceSpec,
  t: Label,
  store: ImportWrites["store"],
  who: Writer,
): (given: Readonly<Record<string, string>>) => { id: string; version: number } {
  return (given) => refusingWrite(spec, t, () => store.create(who, checkedValues(spec, t, new Map(Object.entries(given)), false)));
}

/**
 * Writes every row of `source` without errors through `create` (the form's checks, attributed to whoever `create`
 * writes as), IMPORT_BATCH rows per transaction, telling `progress` the rows done after each; a row with errors, or
 * one `create` refuses (a latch refusal: its reference deleted meanwhile), is skipped and listed (at most
 * IMPORT_ERRORS_SHOWN). `landed` hears of each record created only once its batch committed: a batch rolled back
 * (an error that is no refusal) tells nothing. Stops before the next batch once `signal` aborts.
 */
export async function writeImport(
  source: AsyncIterable<CSVRow>,
  parts: {
    spec: ResourceSpec;
    refs: ImportRefs;
    owner: string;
    db: DB;
    /** Words a skipped row's problem (MountOptions.label). */
    t: Label;
    create: (given: Readonly<Record<string, string>>) => { id: string; version: number };
    landed: (created: { id: string; version: number }) => void;
    progress?: (done: number) => void;
    signal?: AbortSignal;
  },
): Promise<ImportOutcome> {
  const outcome: ImportOutcome = { imported: 0, skipped: [] };
  let done = 0;
  const skip = (line: number, reason: string): void => {
    if (outcome.skipped.length < IMPORT_ERRORS_SHOWN) outcome.skipped.push({ line, reason });
  };
  for await (const batch of checkedBatches(source, parts.spec, parts.refs, parts.owner)) {
    if (parts.signal?.aborted === true) break;
    // One transaction per batch: its records and their events land together (a refused row's savepoint is rolled back alone).
    const created = immediately(parts.db, () => {
      const made: { id: string; version: number }[] = [];
      for (const row of batch.rows) {
        if (row.errors.length > 0) {
          skip(row.line, row.errors.map((e) => problemText(parts.t, e.field, e.problem)).join(" "));
          continue;
        }
        try {
          made.push(parts.create(row.given));
        } catch (e) {
          if (!isAgentError(e)) throw e;
          skip(row.line, e.message);
        }
      }
      return made;
    });
    // README "Live pages": as a bulk change's, the records are told once they landed, never from inside the transaction.
    for (const record of created) parts.landed(record);
    outcome.imported += created.length;
    done += batch.rows.length;
    parts.progress?.(done);
  }
  return outcome;
}
