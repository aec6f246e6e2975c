/*
 * The older migration mechanism (SPEC §2.1 `Migrations`, §9): SQL strings
 * applied in order, `PRAGMA user_version` counting those run. Additive-only:
 * removing entries is refused, and so is a statement that drops or renames
 * (a lexical check: write destructive changes as schema steps instead).
 */
import type { DB } from "./handle.ts";
import { DBError } from "./errors.ts";
import { immediately } from "../internal/index.ts";

const DESTRUCTIVE = /\b(DROP|RENAME)\b/i;

/** Applies the migrations not yet applied, each in one transaction with its `user_version` bump; returns how many ran. */
export function applyMigrations(db: DB, migrations: readonly string[]): number {
  const done = Number(db.pragma("user_version", { simple: true }));
  const removed = `apply migrations: database has ${done} applied but only ${migrations.length} are listed`;
  if (done > migrations.length) throw new DBError("ERR_DB_MIGRATIONS_REMOVED", removed);
  let ran = 0;
  for (let i = done; i < migrations.length; i++) {
    const sql = migrations[i] ?? "";
    // SPEC §2.1: the older mechanism is additive-only.
    if (DESTRUCTIVE.test(sql)) throw new DBError("ERR_DB_MIGRATION_NOT_ADDITIVE", `apply migrations: migration ${i} drops or renames`);

    try {
      immediately(db, () => {
        db.exec(sql);
        db.pragma(`user_version = ${i + 1}`);
      });
    } catch (cause) {
      throw new DBError("ERR_DB_STEP_FAILED", `apply migrations: migration ${i} failed`, { cause });
    }
    ran++;
  }
  return ran;
}
