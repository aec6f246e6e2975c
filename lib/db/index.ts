/// <reference types="node" preserve="true" />
export { OpenDB } from "./open.ts";
export { applySchema, mergeSchemas } from "./schema.ts";
export { applyMigrations } from "./migrations.ts";
export { awaitDurable, setDurable } from "./durable.ts";
export { requireTables } from "./tables.ts";
export { sweepInSteps, SWEEP_STEP } from "./sweep.ts";
export type { SweepStep } from "./sweep.ts";
export { keysetPages, tableRows, EXPORT_PAGE } from "./account-rows.ts";
export type { AccountRows, RowPages, PagedRead, PersonTable } from "./account-rows.ts";
export type { DB, Statement, Transaction } from "./handle.ts";
export type { Step } from "./schema.ts";
// Named by the signatures above (issue 42: a public signature names only public types).
export type { BoundStatement, AnyFunction, ArgsOf } from "./handle.ts";
export type { DurableOptions } from "./durable.ts";
export type { RunResult } from "./handle.ts";
