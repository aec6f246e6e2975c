/*
 * Named schema steps (the newer migration mechanism), merged across
 * components in apply order. Each step runs once in its own transaction and
 * is recorded with a SHA-256 of its SQL; one whose SQL has since changed is
 * refused at boot, naming it: silently diverging schemas lose data.
 */
import { createHash } from "node:crypto";
import type { DB } from "./handle.ts";
import { DBError } from "./errors.ts";
import { immediately } from "../internal/index.ts";

/** One named, immutable schema step. */
export interface Step {
  /** Unique, stable name, e.g. "session/001-sessions". */
  Name: string;
  /** The SQL to run once. Never edit it after release; add a new step. */
  SQL: string;
  /**
   * Work SQL alone cannot say (a rebuild converting values in JavaScript),
   * run after `SQL` in the step's transaction, given the applied steps'
   * names; returns the steps whose work it did in their current form
   * (recorded again when listed, and not run; else forgotten). Only `SQL` is
   * checksummed. Foreign keys are off while it runs, checked before the commit.
   */
  Run?: (db: DB, applied: ReadonlySet<string>) => readonly string[];
  /** The way forward when this step was applied with different SQL, appended to ERR_DB_STEP_CHANGED's message (e.g. the history entry to write). */
  Changed?: (db: DB) => string;
}

/** Concatenates step lists in apply order, refusing duplicate names. */
export function mergeSchemas(...lists: readonly (readonly Step[])[]): Step[] {
  const merged: Step[] = [];
  const seen = new Set<string>();
  for (const step of lists.flat()) {
    if (seen.has(step.Name)) throw new DBError("ERR_DB_STEP_DUPLICATE", `merge schemas: step ${step.Name} appears twice`);
    seen.add(step.Name);
    merged.push(step);
  }
  return merged;
}

function checksum(sql: string): string {
  return createHash("sha256").update(sql).digest("hex");
}

/** Applies the steps not yet recorded, in order, returning their names; throws `DBError` ERR_DB_STEP_CHANGED or ERR_DB_STEP_FAILED. */

export function applySchema(db: DB, steps: readonly Step[]): string[] {
  mergeSchemas(steps);
  db.exec(`CREATE TABLE IF NOT EXISTS latch_schema (
    name TEXT PRIMARY KEY, checksum TEXT NOT NULL, applied_at TEXT NOT NULL) STRICT`);
  const recorded = db.prepare<[string], { checksum: string }>("SELECT checksum FROM latch_schema WHERE name = ?");
  const record = db.prepare("INSERT INTO latch_schema (name, checksum, applied_at) VALUES (?, ?, ?)");
  const forget = db.prepare("DELETE FROM latch_schema WHERE name = ?");
  const names = db.prepare<[], string>("SELECT name FROM latch_schema").pluck();
  const byName = new Map(steps.map((s) => [s.Name, s]));
  const applied: string[] = [];
  for (const step of steps) {
    const sum = checksum(step.SQL);
    const row = recorded.get(step.Name);
    if (row !== undefined) {
      if (row.checksum !== sum) {
        const forward = step.Changed === undefined ? "" : `: ${step.Changed(db)}`;
        throw new DBError("ERR_DB_STEP_CHANGED", `apply schema: step ${step.Name} was applied with different SQL${forward}`);
      }
      continue;
    }
    // SQLite's 12-step table rebuild (lang_altertable.html#otheralter), step 1: a Run may drop and recreate a table that
    // others reference, so foreign keys are off while it runs (DROP TABLE would otherwise delete, cascade or null the
    // references) and checked before its commit (step 10). The pragma is a no-op inside a transaction, so it is set around it.
    const keys = step.Run !== undefined && Number(db.pragma("foreign_keys", { simple: true })) === 1;
    if (keys) db.pragma("foreign_keys = OFF");
    try {
      immediately(db, () => {
        db.exec(step.SQL);
        const redone = step.Run?.(db, new Set(names.all())) ?? [];
        if (keys && (db.pragma("foreign_key_check") as unknown[]).length > 0)
          throw new Error("a reference no longer finds its record (PRAGMA foreign_key_check)");
        const now = new Date().toISOString();
        record.run(step.Name, sum, now);
        for (const name of redone) {
          if (name === step.Name) continue;
          forget.run(name);
          const current = byName.get(name);
          if (current !== undefined) record.run(name, checksum(current.SQL), now);
        }
      });
    } catch (cause) {
      // The cause's message is the reason (a failed statement, or a rebuild naming the field and the fix).
      const reason = cause instanceof Error ? `: ${cause.message}` : "";
      throw new DBError("ERR_DB_STEP_FAILED", `apply schema: step ${step.Name} failed${reason}`, { cause });
    } finally {
      if (keys) db.pragma("foreign_keys = ON");
    }
    applied.push(step.Name);
  }
  return applied;
}
