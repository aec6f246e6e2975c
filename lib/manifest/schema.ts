/*
 * A resource's table as named schema steps (lib/db `Step`), generated at
 * boot from the manifest and never written to disk, so there is no
 * generated file to drift from its source. One step creates the table with
 * the fixed columns; one step per field adds its column, so declaring a new
 * field is a new step, while changing a declared field (its kind) changes
 * that step's SQL and `applySchema` refuses to boot (ERR_DB_STEP_CHANGED),
 * naming the step. An Exclusive resource's table is the store; a Mergeable
 * resource's is the projection of its event streams, for lists and filters.
 *
 * `updated_at` doubles as an Exclusive record's version: every write sets
 * it to max(now, previous + 1), so it strictly increases per record.
 */
import type { Step } from "../db/index.ts";
import { Kind, ScopeKind } from "./kinds.ts";
import type { Field, ResourceSpec } from "./spec.ts";

function columnSQL(field: Field): string {
  return field.Kind === Kind.Money ? `"${field.Name}" INTEGER` : `"${field.Name}" TEXT NOT NULL DEFAULT ''`;
}

/** A Money value's place in a sort when it is empty: before every amount. */
export const NULL_MONEY = -1e18;

/** What a list sorts by for `column`: the column, or for Money the column with empty as `NULL_MONEY`. */
export function sortExpression(spec: ResourceSpec, column: string): string {
  const money = spec.Form.Fields.some((f) => f.Name === column && f.Kind === Kind.Money);
  return money ? `ifnull("${column}", ${NULL_MONEY})` : `"${column}"`;
}

/**
 * Returns the schema steps of `spec` (validate it first): the table
 * `resource/<name>/001-table`, its list index, one
 * `resource/<name>/field-<field>` step per field, and one
 * `resource/<name>/sort-<column>` index per list column a list may be
 * sorted by (besides created_at, which the list index covers): a page of a
 * sorted list then reads one page of the index, however many records its
 * owner holds (issue 27).
 */
export function resourceSchema(spec: ResourceSpec): Step[] {
  const scoped = spec.Scope === ScopeKind.UserScoped;
  const steps: Step[] = [
    {
      Name: `resource/${spec.Name}/001-table`,
      SQL: `CREATE TABLE "${spec.Name}" (
  id TEXT PRIMARY KEY,${scoped ? "\n  owner TEXT NOT NULL," : ""}
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;
CREATE INDEX "${spec.Name}_list" ON "${spec.Name}" (${scoped ? "owner, " : ""}created_at, id);`,
    },
  ];
  for (const field of spec.Form.Fields) {
    steps.push({ Name: `resource/${spec.Name}/field-${field.Name}`, SQL: `ALTER TABLE "${spec.Name}" ADD COLUMN ${columnSQL(field)};` });
  }
  for (const column of sortColumns(spec)) {
    steps.push({
      Name: `resource/${spec.Name}/sort-${column}`,
      SQL: `CREATE INDEX "${spec.Name}_sort_${column}" ON "${spec.Name}" (${scoped ? "owner, " : ""}${column === "id" ? "id" : `${sortExpression(spec, column)}, id`});`,
    });
  }
  return steps;
}

// The columns a list sorts by that the list index does not cover: the list's fields, updated_at and id.
function sortColumns(spec: ResourceSpec): string[] {
  const fields = spec.List.Columns.map((c) => c.Field).filter((c) => spec.Form.Fields.some((f) => f.Name === c));
  return [...new Set([...fields, "updated_at", "id"])];
}
