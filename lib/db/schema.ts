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
  /**
   * Work SQL alone cannot say (a table rebuild converting values in
   * JavaScript: lib/manifest's field history), run after `SQL` in the
   * step's transaction, given the names of the steps already applied. It
   * returns the names of applied or later steps whose work it did in
   * their current form: each is recorded again with its current SQL when
   * the list holds it (and not run), forgotten when the list does not.
   * Only `SQL` is checksummed, so let it describe what `Run` does.
   * Foreign keys are off while it runs and checked before the commit
   * (SQLite's 12-step table rebuild, steps 1 and 10).
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
      db.transaction(() => {
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
      }).immediate();
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
