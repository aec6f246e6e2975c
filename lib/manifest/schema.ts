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

/**
 * Returns the schema steps of `spec` (validate it first): the table
 * `resource/<name>/001-table`, its list index, and one
 * `resource/<name>/field-<field>` step per field.
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
  return steps;
}
