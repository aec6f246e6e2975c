import { LatchError } from "../http/index.ts";
import { hasErrorCode } from "../internal/index.ts";

/** The database module's error codes, each equal to its key. */
export const DB_ERROR_CODES = {
  ERR_DB_OPEN: "ERR_DB_OPEN",
  ERR_DB_STEP_CHANGED: "ERR_DB_STEP_CHANGED",
  ERR_DB_STEP_DUPLICATE: "ERR_DB_STEP_DUPLICATE",
  ERR_DB_STEP_FAILED: "ERR_DB_STEP_FAILED",
  ERR_DB_MIGRATION_NOT_ADDITIVE: "ERR_DB_MIGRATION_NOT_ADDITIVE",
  ERR_DB_MIGRATIONS_REMOVED: "ERR_DB_MIGRATIONS_REMOVED",
  ERR_DB_NOT_DURABLE: "ERR_DB_NOT_DURABLE",
  ERR_DB_MISSING_TABLE: "ERR_DB_MISSING_TABLE",
} as const;

/** A database error code. */
export type DBErrorCode = keyof typeof DB_ERROR_CODES;

/** An error opening or migrating the database, or a commit Litestream could not confirm (status 503). */
export class DBError extends LatchError<DBErrorCode> {
  override name: string = "DBError";
}

/** Reports whether `e` is a `DBError` (by code, so vendored copies match). */
export function isDBError(e: unknown): e is DBError {
  return hasErrorCode(e, DB_ERROR_CODES);
}
