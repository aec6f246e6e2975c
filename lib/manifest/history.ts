/*
 * A resource's `History` (README "Changing a field"): each rename, kind change and removal of a field is a named
 * schema step before the table's own. On a database holding the table, the first pending step applies every pending
 * change in its one transaction: it reads every record, converts its values (CONVERSIONS) and rebuilds the table in
 * SQLite's 12-step way (https://www.sqlite.org/lang_altertable.html#otheralter: a `CHECK` cannot be altered). A value
 * that does not convert refuses the boot and changes nothing. A history step writes no event: it is the operator's
 * change of the schema, and its row in `latch_schema` is its record.
 */
import type { DB, Step } from "../db/index.ts";
import { ManifestError } from "./errors.ts";
import { Kind, StoreKind } from "./kinds.ts";
import type { FieldValue } from "./merge.ts";
import { ownerOf, scopeColumn } from "./scope.ts";
import { searchRow } from "./search.ts";
import type { Change, Field, ResourceSpec } from "./spec.ts";
import { CONVERSIONS } from "./conversions.ts";
import { DEFAULT_CURRENCY, isNullable } from "./values.ts";

export { CONVERSIONS } from "./conversions.ts";

/** The shape of a history entry's `Step`: lowercase letters, digits and "-", 1 to 63, unique within the resource. */
export const HISTORY_STEP_PATTERN: RegExp = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** The name of `change`'s schema step. */
function stepName(spec: ResourceSpec, change: Change): string {
  return `resource/${spec.Name}/history-${change.Step}`;
}

/** What `change` says, as the comment its step's SQL is (the checksum covers it: an applied entry never changes). */
function describe(change: Change): string {
  if ("Rename" in change) return `rename "${change.Rename.From}" to "${change.Rename.To}"`;
  if ("Retype" in change) {
    const { Field, From, To, Currency } = change.Retype;
    return `retype "${Field}" from ${From} to ${To}${Currency === undefined ? "" : ` (${Currency})`}`;
  }
  return `remove "${change.Remove.Field}"`;
}

/**
 * Checks `spec.History` against its fields, walking back from the fields declared now (each refusal says the rule it
 * enforces); only an Exclusive resource has a history, as a Mergeable record's events hold its field names and values.
 * Throws `ManifestError` ERR_MANIFEST_INVALID_HISTORY naming the entry.
 */
export function validateHistory(spec: ResourceSpec): void {
  const history = spec.History ?? [];
  const resource = spec.Name;
  if (history.length === 0) return;
  const fail = (reason: string, field?: string): never => {
    throw new ManifestError("ERR_MANIFEST_INVALID_HISTORY", field === undefined ? { resource } : { resource, field }, reason);
  };
  if (!Array.isArray(history)) fail("History must be a list of changes");
  if (spec.Store !== StoreKind.Exclusive) {
    fail("History is for Exclusive resources: a Mergeable record's events hold its field names and values (add a new field instead)");
  }
  const steps = new Set<string>();
  for (const change of history) {
    const step: unknown = change?.Step;
    if (typeof step !== "string" || !HISTORY_STEP_PATTERN.test(step)) fail(`a history Step must match ${HISTORY_STEP_PATTERN.source}`);
    if (steps.has(String(step))) fail(`history step ${String(step)} is declared twice`);
    steps.add(String(step));
    const kinds = ["Rename", "Retype", "Remove"].filter((k) => typeof (change as unknown as Record<string, unknown>)[k] === "object");
    if (kinds.length !== 1) fail(`history step ${String(step)} needs exactly one of Rename, Retype, Remove`);
  }
  // Walking back from now: a field's kind at each point, undefined for a field removed later.
  const at = new Map<string, Kind | undefined>(spec.Form.Fields.map((f) => [f.Name, f.Kind]));
  for (const change of [...history].reverse()) {
    const where = `history step ${change.Step}`;
    if ("Rename" in change) {
      const { From, To } = change.Rename;
      if (!at.has(To)) fail(`${where} renames to a field that is not declared after it`, To);
      if (at.has(From)) fail(`${where} renames from a field that is still declared after it`, From);
      at.set(From, at.get(To));
      at.delete(To);
    } else if ("Retype" in change) {
      const { Field, From, To, Currency } = change.Retype;
      if (!at.has(Field)) fail(`${where} retypes a field that is not declared after it`, Field);
      const now = at.get(Field);
      if (now !== undefined && now !== To) fail(`${where} retypes to ${To} but the field is ${now} after it`, Field);
      if (!CONVERSIONS.has(`${From}→${To}`)) {
        fail(
          `${where}: no conversion from ${From} to ${To} is defined (README "Changing a field" lists them); go through text (two Retype entries) or Remove the field and add a new one`,
          Field,
        );
      }
      if (Currency !== undefined && (From !== Kind.Money || !Intl.supportedValuesOf("currency").includes(Currency))) {
        fail(`${where}: Currency is the currency of a Money field before the change, an ISO 4217 code Intl lists`, Field);
      }
      at.set(Field, From);
    } else {
      const field = change.Remove.Field;
      if (at.has(field)) fail(`${where} removes a field declared after it: a removed name is not reused, choose another`, field);
      at.set(field, undefined);
    }
  }
}

/**
 * What history.ts needs of the table as declared now (schema.ts hands it over, so neither file imports the other): its
 * steps without history, its CREATE TABLE statement under `name` with every field's column inline, its list index
 * statement, and its searched fields in form order.
 */
export interface TableShape {
  readonly steps: readonly Step[];
  readonly createTable: (name: string) => string;
  readonly listIndex: string;
  readonly searched: readonly string[];
}

/** Returns the schema steps of `spec.History` (checked: `validateHistory`), to come before the table's own steps. */
export function historySteps(spec: ResourceSpec, shape: TableShape): Step[] {
  // Checked here too: an application may merge `resourceSchema` into Options.Schema before mounting (and validating) the resource.
  validateHistory(spec);
  const history = spec.History ?? [];
  return history.map((change, i) => ({
    Name: stepName(spec, change),
    SQL: `-- ${describe(change)}`,
    Run: (db: DB, applied: ReadonlySet<string>): readonly string[] => rebuild(db, spec, shape, history.slice(i), applied),
  }));
}

/** One field's values as a rebuild reads them: from which column, through which conversions. */
interface Source {
  readonly field: Field;
  /** The column holding its values now, undefined for a field added since (its empty value). */
  readonly column: string | undefined;
  readonly retypes: readonly { from: Field; to: Field }[];
}

// Applies `pending` (the changes not yet applied, oldest first) to the table, if there is one; returns the steps it did.
function rebuild(
  db: DB,
  spec: ResourceSpec,
  shape: TableShape,
  pending: readonly Change[],
  applied: ReadonlySet<string>,
): readonly string[] {
  const table = spec.Name;
  const exists = db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?").get(table) !== undefined;
  // A new database: the table's own steps create it as declared now.
  if (!exists) return [];
  const later = pending.find((c) => applied.has(stepName(spec, c)));
  if (later !== undefined) {
    throw new ManifestError(
      "ERR_MANIFEST_INVALID_HISTORY",
      { resource: table },
      `history step ${pending[0]?.Step} is new but ${later.Step} after it is applied: history is appended to, never inserted into`,
    );
  }
  const columns = new Set(db.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(table) as string[]);
  const sources = spec.Form.Fields.map((field) => source(spec, field, pending, columns));
  const rows = db.prepare(`SELECT rowid AS latch_rowid, * FROM "${table}" ORDER BY rowid`).all() as Row[];
  const values = convert(table, sources, rows);
  replaceTable(db, spec, shape, columns, rows, values);
  fillSearch(db, spec, shape, rows, values);
  // The ledger: every step of the table as declared now is done, the pending history too, and the steps of renamed or removed fields are forgotten.
  const gone = pending.flatMap((c) => ("Rename" in c ? [c.Rename.From] : "Remove" in c ? [c.Remove.Field] : []));
  return [
    ...shape.steps.map((s) => s.Name),
    ...pending.map((c) => stepName(spec, c)),
    ...gone.flatMap((f) => ["field", "sort", "search"].map((k) => `resource/${table}/${k}-${f}`)),
  ];
}

/** A record as the rebuild reads it: its columns and its rowid (`latch_rowid`). */
type Row = Record<string, unknown>;

// SQLite's 12 steps, 3 to 8 (1, 2 and 10 to 12, foreign keys off, the transaction and the foreign key check, are applySchema's for a step with Run).
function replaceTable(
  db: DB,
  spec: ResourceSpec,
  shape: TableShape,
  columns: ReadonlySet<string>,
  rows: readonly Row[],
  values: readonly FieldValue[][],
): void {
  const table = spec.Name;
  // 3: the indexes and triggers the manifest's steps did not make, recreated in 8 (its own are made as declared now).
  const own = (name: string): boolean => name === `${table}_list` || name === `${table}_search_delete` || name.startsWith(`${table}_sort_`);
  const kept = db.prepare(`SELECT name, sql FROM sqlite_schema WHERE tbl_name = ? AND type IN ('index', 'trigger') AND sql IS NOT NULL`);
  const others = (kept.all(table) as { name: string; sql: string }[]).filter((o) => !own(o.name));
  // 4, 5: the new table, every record copied with its rowid (the search index's key) and its converted values.
  const fresh = `${table}_rebuild`;
  db.exec(shape.createTable(fresh));
  const fixed = [...columns].filter((c) => FIXED.has(c) && !spec.Form.Fields.some((f) => f.Name === c));
  const names = ["rowid", ...fixed, ...spec.Form.Fields.map((f) => f.Name)];
  const insert = db.prepare(
    `INSERT INTO "${fresh}" (${names.map((n) => `"${n}"`).join(", ")}) VALUES (${names.map(() => "?").join(", ")})`,
  );
  rows.forEach((row, i) => insert.run(row["latch_rowid"], ...fixed.map((c) => row[c]), ...(values[i] ?? [])));
  // 6, 7: the old table goes (its indexes and its search trigger with it), the new one takes its name.
  db.exec(`DROP TABLE "${table}"; ALTER TABLE "${fresh}" RENAME TO "${table}";`);
  // 8: the list and sort indexes as declared now, then the others.
  db.exec(shape.listIndex);
  for (const step of shape.steps.filter((s) => /\/sort-[^/]+$/.test(s.Name))) db.exec(step.SQL);
  for (const other of others) db.exec(other.sql);
}

// The search index made as declared now (its FTS5 table and delete trigger) and filled as the write paths fill it (table.ts).
function fillSearch(db: DB, spec: ResourceSpec, shape: TableShape, rows: readonly Row[], values: readonly FieldValue[][]): void {
  db.exec(`DROP TABLE IF EXISTS "${spec.Name}_search";`);
  const search = shape.steps.find((s) => s.Name.endsWith("/002-search"));
  if (search !== undefined) db.exec(search.SQL);
  const index = db.prepare(`INSERT INTO "${spec.Name}_search" (rowid, body) VALUES (?, ?)`);
  const searchedAt = shape.searched.map((name) => spec.Form.Fields.findIndex((f) => f.Name === name));
  rows.forEach((row, i) => {
    const texts = searchedAt.map((at) => values[i]?.[at] ?? null);
    const body = searchRow(ownerOf(spec, String(row[scopeColumn(spec) ?? "owner"])), texts);
    if (body !== undefined) index.run(row["latch_rowid"], body);
  });
}

// The columns every table has besides its fields (validate.ts FIXED_COLUMNS, owner when user-scoped, team and author when team-scoped).
const FIXED = new Set(["id", "owner", "team", "author", "created_at", "updated_at"]);

// Walks the pending changes back from `field` as declared now: the column it is read from and the kinds it passes through.
function source(spec: ResourceSpec, field: Field, pending: readonly Change[], columns: ReadonlySet<string>): Source {
  let name = field.Name;
  let current: Field = field;
  const retypes: { from: Field; to: Field }[] = [];
  for (const change of [...pending].reverse()) {
    if ("Rename" in change && change.Rename.To === name) name = change.Rename.From;
    if ("Retype" in change && change.Retype.Field === name) {
      const { From, Currency } = change.Retype;
      const from: Field = { Name: name, Label: name, Kind: From, ...(From === Kind.Money && { Currency: Currency ?? DEFAULT_CURRENCY }) };
      retypes.unshift({ from, to: current });
      current = from;
    }
  }
  const renamed = name !== field.Name || retypes.length > 0;
  if (renamed && !columns.has(name)) {
    throw new ManifestError(
      "ERR_MANIFEST_HISTORY_REFUSED",
      { resource: spec.Name, field: field.Name },
      `the history reads column "${name}", which the table does not have: check the History entries of this field`,
    );
  }
  return { field, column: columns.has(name) ? name : undefined, retypes };
}

// Every row's values in form order, converted; refuses the boot naming the first field whose values do not all convert.
function convert(table: string, sources: readonly Source[], rows: readonly Row[]): FieldValue[][] {
  const out: FieldValue[][] = rows.map(() => []);
  for (const src of sources) {
    let refused = 0;
    let first: { id: string; reason: string } | undefined;
    rows.forEach((row, i) => {
      let value = (src.column === undefined ? defaultValue(src.field) : (row[src.column] ?? null)) as FieldValue;
      for (const { from, to } of src.retypes) {
        const result = CONVERSIONS.get(`${from.Kind}→${to.Kind}`)?.(value, from, to) ?? { refused: "has no conversion" };
        if ("refused" in result) {
          refused++;
          first ??= { id: String(row["id"]), reason: `${from.Kind} → ${to.Kind}: the value ${result.refused}` };
          return;
        }
        value = result.value;
      }
      out[i]?.push(value);
    });
    if (first !== undefined) {
      throw new ManifestError(
        "ERR_MANIFEST_HISTORY_REFUSED",
        { resource: table, field: src.field.Name },
        `${refused} record(s) hold a value that does not convert, the first is id ${first.id} (${first.reason}); ` +
          "fix those records with the old manifest, or change the History entry (another kind, or Remove and a new field); nothing was changed",
      );
    }
  }
  return out;
}

// What a column added since holds in a record already there: the kind's empty value (as ALTER TABLE ADD COLUMN gives).
function defaultValue(field: Field): FieldValue {
  if (field.Kind === Kind.Boolean) return 0;
  return isNullable(field.Kind) ? null : "";
}

/**
 * The way forward when a field's step was applied with other SQL: the kind it is stored as (its column's definition in
 * the table's SQL) and the history entry that converts it.
 */
export function driftAdvice(db: DB, spec: ResourceSpec, field: Field, columnSQL: (field: Field) => string): string {
  const row = db.prepare("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?").get(spec.Name) as { sql: string } | undefined;
  const stored = Object.values(Kind)
    .map((kind) => ({ kind, sql: columnSQL({ ...field, Kind: kind }) }))
    .filter((c) => row?.sql.includes(c.sql) === true)
    .sort((a, b) => b.sql.length - a.sql.length)[0]?.kind;
  if (stored === undefined || stored === field.Kind) {
    return `field "${field.Name}" of resource "${spec.Name}" changed since its step was applied; declare the change in the resource's History (lib/manifest/README.md "Changing a field")`;
  }
  const entry = `{ Step: "${field.Name}-to-${field.Kind}", Retype: { Field: "${field.Name}", From: "${stored}", To: "${field.Kind}" } }`;
  const defined = CONVERSIONS.has(`${stored}→${field.Kind}`)
    ? ""
    : ` (no conversion from ${stored} to ${field.Kind} is defined: go through text, or Remove the field and add a new one)`;
  return `field "${field.Name}" of resource "${spec.Name}" is stored as ${stored} and declared as ${field.Kind}: add to the resource's History ${entry}${defined} (lib/manifest/README.md "Changing a field")`;
}
