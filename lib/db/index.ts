export { OpenDB, PRAGMAS, BUSY_TIMEOUT } from "./open.ts";
export { applySchema, mergeSchemas } from "./schema.ts";
export { applyMigrations } from "./migrations.ts";
export { DBError, DB_ERROR_CODES, isDBError } from "./errors.ts";
export type { DB } from "./open.ts";
export type { Step } from "./schema.ts";
export type { DBErrorCode } from "./errors.ts";
