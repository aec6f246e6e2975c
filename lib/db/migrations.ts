/*
 * The older migration mechanism (SPEC §2.1 `Migrations`, §9): a plain list
 * of SQL strings, applied in order at boot. The database's
 * `PRAGMA user_version` counts how many have run, so a restart applies only
 * the new tail (idempotent). The list is additive-only: removing entries is
 * refused, and a statement that drops or renames is refused before it runs
 * (a lexical check on the SQL text; comments and string literals are not
 * parsed, so write destructive changes as new-style schema steps instead).
 */
import type { DB } from "./handle.ts";
import { DBError } from "./errors.ts";

const DESTRUCTIVE = /\b(DROP|RENAME)\b/i;

/**
 * Applies the migrations not yet applied, each in its own transaction
 * together with the `user_version` bump. Returns how many ran.
 */
export function applyMigrations(db: DB, migrations: readonly string[]): number {
  const done = Number(db.pragma("user_version", { simple: true }));
  if (done > migrations.length) {
    throw new DBError(
      "ERR_DB_MIGRATIONS_REMOVED",
      `apply migrations: database has ${done} applied but only ${migrations.length} are listed`,
    );
  }
  let ran = 0;
  for (let i = done; i < migrations.length; i++) {
    const sql = migrations[i] ?? "";
    // SPEC §2.1: the older mechanism is additive-only.
    if (DESTRUCTIVE.test(sql)) {
      throw new DBError("ERR_DB_MIGRATION_NOT_ADDITIVE", `apply migrations: migration ${i} drops or renames`);
    }
    try {
      db.transaction(() => {
        db.exec(sql);
        db.pragma(`user_version = ${i + 1}`);
      }).immediate();
    } catch (cause) {
      throw new DBError("ERR_DB_STEP_FAILED", `apply migrations: migration ${i} failed`, { cause });
    }
    ran++;
  }
  return ran;
}
