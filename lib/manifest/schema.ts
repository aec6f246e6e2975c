/*
 * A resource's table as named schema steps (lib/db `Step`), generated at boot from the manifest and never written to
 * disk (README "Decisions"): one step creates the table with the fixed columns, one per field adds its column (SQLite's
 * ADD COLUMN: rows already there get the kind's empty value, which every CHECK accepts). A changed field's step is drift
 * that `applySchema` refuses; renames, kind changes and removals are the resource's `History` (history.ts).
 * `updated_at` doubles as an Exclusive record's version: every write sets it to max(now, previous + 1).
 */
import type { DB, Step } from "../db/index.ts";
import { driftAdvice, historySteps } from "./history.ts";
import { Kind } from "./kinds.ts";
import { isOwned, scopeColumn } from "./scope.ts";
import { searchRow } from "./search.ts";
import { EMAIL_MAX_LENGTH, INTEGER_LIMIT, URL_MAX_LENGTH } from "./scalars.ts";
import type { Field, ResourceSpec } from "./spec.ts";

/**
 * Returns the column definition of `field`. Text, Textarea and Money keep the definitions they were first applied with
 * (a changed step is drift). The other kinds carry a `CHECK` of what the kind stores, so no write path, even one that
 * skips parsing, can store another shape; a field's own bounds and choices (`Min`, `Max`, `Choices`) are checked when
 * parsing and left out of the SQL, so changing them is no schema change.
 */
export function columnSQL(field: Field): string {
  const c = `"${field.Name}"`;
  switch (field.Kind) {
    case Kind.Money:
      return `${c} INTEGER`;
    case Kind.Date:
      // date() rewrites a day that does not exist (2026-02-30 → 2026-03-02), so it must give the text back unchanged.
      return `${c} TEXT CHECK (${c} IS NULL OR (${c} GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]' AND date(${c}) IS ${c}))`;
    case Kind.Integer:
      return `${c} INTEGER CHECK (${c} IS NULL OR ${c} BETWEEN -${INTEGER_LIMIT} AND ${INTEGER_LIMIT})`;
    case Kind.Boolean:
      return `${c} INTEGER NOT NULL DEFAULT 0 CHECK (${c} IN (0, 1))`;
    case Kind.Choice:
      return `${c} TEXT NOT NULL DEFAULT '' CHECK (length(${c}) <= 63 AND ${c} NOT GLOB '*[^a-z0-9_-]*')`;
    case Kind.Email:
      return `${c} TEXT NOT NULL DEFAULT '' CHECK (${c} = '' OR (length(${c}) <= ${EMAIL_MAX_LENGTH} AND ${c} GLOB '?*@?*'))`;
    case Kind.URL:
      return `${c} TEXT NOT NULL DEFAULT '' CHECK (${c} = '' OR (length(${c}) <= ${URL_MAX_LENGTH} AND (${c} GLOB 'http://?*' OR ${c} GLOB 'https://?*')))`;
    case Kind.Reference:
      // The referenced record's id (REFERENCE_ID_PATTERN); NULL when none. Which record it may be is checked on every write (references.ts).
      return `${c} TEXT CHECK (${c} IS NULL OR (length(${c}) BETWEEN 1 AND 64 AND ${c} NOT GLOB '*[^A-Za-z0-9_-]*'))`;
    case Kind.File:
      // The attachment's id (attachments.ts: 22 base64url characters); NULL when none.
      return `${c} TEXT CHECK (${c} IS NULL OR (length(${c}) = 22 AND ${c} NOT GLOB '*[^A-Za-z0-9_-]*'))`;
    default:
      return `${c} TEXT NOT NULL DEFAULT ''`;
  }
}

// Below every amount (MONEY_MAX_MINOR) and whole number (INTEGER_LIMIT).
const NULL_NUMBER = -1e18;

/** Where an empty value of `column` sorts: below every amount and number, before every date; undefined when as stored. */
export function nullSort(spec: ResourceSpec, column: string): number | string | undefined {
  const kind = spec.Form.Fields.find((f) => f.Name === column)?.Kind;
  if (kind === Kind.Money || kind === Kind.Integer) return NULL_NUMBER;
  return kind === Kind.Date || kind === Kind.Reference ? "" : undefined;
}

/** What a list sorts by for `column` (its sort index is on the same expression): the column, an empty one as `nullSort` says. */
export function sortExpression(spec: ResourceSpec, column: string): string {
  const empty = nullSort(spec, column);
  if (empty === undefined) return `"${column}"`;
  return `ifnull("${column}", ${typeof empty === "number" ? empty : "''"})`;
}

/** Reports whether `field`'s text is searched by a list's `q`: Text, Textarea, Email and URL. */
export function isSearched(field: Field): boolean {
  return field.Kind === Kind.Text || field.Kind === Kind.Textarea || field.Kind === Kind.Email || field.Kind === Kind.URL;
}

/**
 * Returns the schema steps of `spec` (validate it first): its history's `resource/<name>/history-<Step>` (history.ts),
 * the table `resource/<name>/001-table` with its list index, `field-<field>` per field, `sort-<column>` per column a
 * list may be sorted by (so a sorted page reads one page of an index, issue 27), `reference-<field>` per Reference
 * field (finding the records referring to one being deleted), then the search index `002-search` (an FTS5 table
 * `<name>_search`, one row per record, and the trigger that drops a deleted record's row), `search-<field>` per searched
 * field (appending its text of the records already there, so a step never changes when a field is added) and, when
 * user-scoped, `003-search-owner` (README "Search and export").
 */
export function resourceSchema(spec: ResourceSpec): Step[] {
  const scope = scopeColumn(spec);
  const index = `"${spec.Name}_search"`;
  const searched = spec.Form.Fields.filter(isSearched);
  const steps: Step[] = [
    { Name: `resource/${spec.Name}/001-table`, SQL: `${createTableSQL(spec, spec.Name, [])}\n${listIndexSQL(spec)}` },
    ...spec.Form.Fields.map((field): Step => ({
      Name: `resource/${spec.Name}/field-${field.Name}`,
      SQL: `ALTER TABLE "${spec.Name}" ADD COLUMN ${columnSQL(field)};`,
      Changed: (db) => driftAdvice(db, spec, field, columnSQL),
    })),
    ...sortColumns(spec).map((column) => ({
      Name: `resource/${spec.Name}/sort-${column}`,
      SQL: `CREATE INDEX "${spec.Name}_sort_${column}" ON "${spec.Name}" (${scope === undefined ? "" : `${scope}, `}${column === "id" ? "id" : `${sortExpression(spec, column)}, id`});`,
    })),
    // Deleting a record looks up the records referring to it: one index per Reference field.
    ...spec.Form.Fields.filter((f) => f.Kind === Kind.Reference).map((field) => ({
      Name: `resource/${spec.Name}/reference-${field.Name}`,
      SQL: `CREATE INDEX "${spec.Name}_ref_${field.Name}" ON "${spec.Name}" ("${field.Name}");`,
    })),
    {
      Name: `resource/${spec.Name}/002-search`,
      // The trigram tokenizer splits no words, so it finds Chinese and Japanese as well as Latin, Cyrillic and Arabic (README "Search").
      // A record's text leaves the index with the record, whoever deletes it (lib/account deletes a person's rows itself).
      SQL: `CREATE VIRTUAL TABLE ${index} USING fts5(body, tokenize = 'trigram remove_diacritics 1');
CREATE TRIGGER "${spec.Name}_search_delete" AFTER DELETE ON "${spec.Name}" BEGIN
  DELETE FROM ${index} WHERE rowid = old.rowid;
END;`,
    },
    ...searched.map((field) => ({
      Name: `resource/${spec.Name}/search-${field.Name}`,
      SQL: `INSERT OR REPLACE INTO ${index} (rowid, body)
  SELECT r.rowid, coalesce((SELECT s.body || char(10) FROM ${index} s WHERE s.rowid = r.rowid), '') || r."${field.Name}"
  FROM "${spec.Name}" r WHERE r."${field.Name}" <> '';`,
    })),
    ...(isOwned(spec) ? [ownerTagStep(spec, index)] : []),
  ];
  const shape = {
    steps,
    createTable: (name: string) => createTableSQL(spec, name, spec.Form.Fields),
    listIndex: listIndexSQL(spec),
    searched: searched.map((f) => f.Name),
  };
  return [...historySteps(spec, shape), ...steps];
}

// The step giving every record of a database from before it its search row's owner tag (`tagSearchRows`).
function ownerTagStep(spec: ResourceSpec, index: string): Step {
  return {
    Name: `resource/${spec.Name}/003-search-owner`,
    SQL: `-- Every record of "${spec.Name}" gets its row of ${index}, starting with its owner's tag (search.ts searchRow).`,
    Run: (db) => {
      tagSearchRows(db, spec, index);
      return [];
    },
  };
}

// Rewrites every record's search row as searchRow makes it: its owner's tag, then the text already indexed; in batches by
// rowid, since a statement being read cannot be written beside (a few hundred MB for 10⁶ records read at once).
function tagSearchRows(db: DB, spec: ResourceSpec, index: string): void {
  const batch = db.prepare(
    `SELECT r.rowid AS latch_rowid, r.owner, s.body FROM "${spec.Name}" r LEFT JOIN ${index} s ON s.rowid = r.rowid
WHERE r.rowid > ? ORDER BY r.rowid LIMIT 10000`,
  );
  const write = db.prepare(`INSERT OR REPLACE INTO ${index} (rowid, body) VALUES (?, ?)`);
  for (let after = 0; ;) {
    const rows = batch.all(after) as { latch_rowid: number; owner: string; body: string | null }[];
    if (rows.length === 0) return;
    for (const row of rows) write.run(row.latch_rowid, searchRow(row.owner, [row.body]));
    after = rows[rows.length - 1]!.latch_rowid;
  }
}

// The table's CREATE TABLE statement under `name`, with `fields`' columns inline (none: the first step's, as it was first applied).
function createTableSQL(spec: ResourceSpec, name: string, fields: readonly Field[]): string {
  const columns = fields.map((f) => `,\n  ${columnSQL(f)}`).join("");
  // A team's record keeps its author: the person who created it (attribution, their export, their erasure's pseudonym).
  const scope = { owner: "\n  owner TEXT NOT NULL,", team: "\n  team TEXT NOT NULL,\n  author TEXT NOT NULL,", none: "" }[
    scopeColumn(spec) ?? "none"
  ];
  return `CREATE TABLE "${name}" (
  id TEXT PRIMARY KEY,${scope}
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL${columns}
) STRICT;`;
}

function listIndexSQL(spec: ResourceSpec): string {
  const scope = scopeColumn(spec);
  return `CREATE INDEX "${spec.Name}_list" ON "${spec.Name}" (${scope === undefined ? "" : `${scope}, `}created_at, id);`;
}

// The columns a list sorts by that the list index does not cover: the list's fields, updated_at and id.
function sortColumns(spec: ResourceSpec): string[] {
  const fields = spec.List.Columns.map((c) => c.Field).filter((c) => spec.Form.Fields.some((f) => f.Name === c));
  return [...new Set([...fields, "updated_at", "id"])];
}
