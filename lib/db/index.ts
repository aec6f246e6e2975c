/// <reference types="node" preserve="true" />
export { OpenDB, PRAGMAS, BUSY_TIMEOUT } from "./open.ts";
export { applySchema, mergeSchemas } from "./schema.ts";
export { applyMigrations } from "./migrations.ts";
export { DBError, DB_ERROR_CODES, isDBError } from "./errors.ts";
export { awaitDurable, setDurable, syncLitestream, LITESTREAM_SOCKET, DEFAULT_DURABLE_TIMEOUT } from "./durable.ts";
export type { DurableOptions, SyncAnswer } from "./durable.ts";
export type { DB, Statement, Transaction, RunResult } from "./handle.ts";
export type { Step } from "./schema.ts";
export type { DBErrorCode } from "./errors.ts";
