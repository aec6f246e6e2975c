/*
 * The owner scope (SPEC §2.5 ScopeKind; README "Owner in SQL"): whose records a statement, a live stream or a search
 * row reaches. Every rule that tells one owner's records from another's asks here, and a resource's SQL is built with
 * the two helpers beside it (`where`, `preparer`).
 */
import type { DB, Statement } from "../db/index.ts";
import { ScopeKind } from "./kinds.ts";
import type { ResourceSpec } from "./spec.ts";

type Scoped = Pick<ResourceSpec, "Scope">;

/** Reports whether each record of `spec` belongs to one owner, kept in its `owner` column (UserScoped). */
export function isOwned(spec: Scoped): boolean {
  return spec.Scope === ScopeKind.UserScoped;
}

/** Who a record of `spec` written for `owner` belongs to: `owner` when owned, undefined when everyone signed in shares it. */
export function ownerOf(spec: Scoped, owner: string): string | undefined {
  return isOwned(spec) ? owner : undefined;
}

/** The conditions keeping `owner`'s records of `spec`, with their parameters: `owner = ?` when owned, none otherwise. */
export function ownerClauses(spec: Scoped, owner: string): { clauses: string[]; params: unknown[] } {
  return isOwned(spec) ? { clauses: ["owner = ?"], params: [owner] } : { clauses: [], params: [] };
}

/** " WHERE a AND b", or nothing. */
export function where(clauses: readonly string[]): string {
  return clauses.length === 0 ? "" : ` WHERE ${clauses.join(" AND ")}`;
}

/** Returns `db.prepare` preparing each statement once, on first use (so a store may be built before its schema is applied). */
export function preparer(db: DB): (sql: string) => Statement {
  // The SQL is built from manifest names only (values are bound), so there are finitely many statements.
  const statements = new Map<string, Statement>();
  return (sql) => {
    let statement = statements.get(sql);
    if (statement === undefined) statements.set(sql, (statement = db.prepare(sql)));
    return statement;
  };
}
