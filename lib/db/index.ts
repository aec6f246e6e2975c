/// <reference types="node" preserve="true" />
export { OpenDB } from "./open.ts";
export { applySchema, mergeSchemas } from "./schema.ts";
export { applyMigrations } from "./migrations.ts";
export { awaitDurable, setDurable } from "./durable.ts";
export { requireTables } from "./tables.ts";
export { keysetPages, tableRows, EXPORT_PAGE } from "./account-rows.ts";
export type { AccountRows, RowPages, PagedRead, PersonTable } from "./account-rows.ts";
export type { DB, Statement, Transaction } from "./handle.ts";
export type { Step } from "./schema.ts";
