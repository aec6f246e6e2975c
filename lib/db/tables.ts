// A component's check at construction that its tables exist: a schema left out of `mergeSchemas` fails at start, named, not as "no such table" later.
import { DBError } from "./errors.ts";
import type { DB } from "./handle.ts";

/**
 * Throws `ERR_DB_MISSING_TABLE` naming the first of `tables` that `db`
 * lacks, `component` and the `schema` that creates it.
 *
 * @example
 * requireTables(db, "agent tokens", "agent.Schema", ["agent_tokens"]);
 * // agent tokens: table agent_tokens is missing: merge agent.Schema into mergeSchemas(...)
 */
export function requireTables(db: DB, component: string, schema: string, tables: readonly string[]): void {
  const exists = db.prepare<[string], { n: number }>("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = ?");
  const missing = tables.find((table) => exists.get(table)?.n === 0);
  if (missing === undefined) return;
  throw new DBError("ERR_DB_MISSING_TABLE", `${component}: table ${missing} is missing: merge ${schema} into mergeSchemas(...)`);
}
