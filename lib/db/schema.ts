/*
 * Named schema steps (the newer migration mechanism). Every component
 * exports its schema as an ordered list of `Step`s; an application merges
 * them (merge order is apply order: sessions before sign-in before
 * passkey). `applySchema` runs each step not yet applied in its own
 * transaction and records its name with a SHA-256 checksum of its SQL; an
 * applied step whose SQL has since changed is refused at boot, naming it,
 * because silently diverging schemas are how data gets lost.
 */
import { createHash } from "node:crypto";
import type { DB } from "./handle.ts";
import { DBError } from "./errors.ts";

/** One named, immutable schema step. */
export interface Step {
  /** Unique, stable name, e.g. "session/001-sessions". */
  Name: string;
  /** The SQL to run once. Never edit it after release; add a new step. */
  SQL: string;
}

/** Concatenates step lists in apply order, refusing duplicate names. */
export function mergeSchemas(...lists: readonly (readonly Step[])[]): Step[] {
  const merged: Step[] = [];
  const seen = new Set<string>();
  for (const step of lists.flat()) {
    if (seen.has(step.Name)) {
      throw new DBError("ERR_DB_STEP_DUPLICATE", `merge schemas: step ${step.Name} appears twice`);
    }
    seen.add(step.Name);
    merged.push(step);
  }
  return merged;
}

function checksum(sql: string): string {
  return createHash("sha256").update(sql).digest("hex");
}

/**
 * Applies every step of `steps` not yet recorded, in order. Returns the
 * names it applied. Throws `DBError` ERR_DB_STEP_CHANGED when a recorded
 * step's SQL differs, ERR_DB_STEP_FAILED when a step's SQL fails.
 */
export function applySchema(db: DB, steps: readonly Step[]): string[] {
  mergeSchemas(steps);
  db.exec(`CREATE TABLE IF NOT EXISTS latch_schema (
    name TEXT PRIMARY KEY, checksum TEXT NOT NULL, applied_at TEXT NOT NULL) STRICT`);
  const recorded = db.prepare<[string], { checksum: string }>("SELECT checksum FROM latch_schema WHERE name = ?");
  const record = db.prepare("INSERT INTO latch_schema (name, checksum, applied_at) VALUES (?, ?, ?)");
  const applied: string[] = [];
  for (const step of steps) {
    const sum = checksum(step.SQL);
    const row = recorded.get(step.Name);
    if (row !== undefined) {
      if (row.checksum !== sum) {
        throw new DBError("ERR_DB_STEP_CHANGED", `apply schema: step ${step.Name} was applied with different SQL`);
      }
      continue;
    }
    try {
      db.transaction(() => {
        db.exec(step.SQL);
        record.run(step.Name, sum, new Date().toISOString());
      }).immediate();
    } catch (cause) {
      throw new DBError("ERR_DB_STEP_FAILED", `apply schema: step ${step.Name} failed`, { cause });
    }
    applied.push(step.Name);
  }
  return applied;
}
