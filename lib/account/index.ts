/// <reference types="node" preserve="true" />
export { create, Account, REVERSE_WINDOW } from "./account.ts";
export { Schema } from "./schema.ts";
export { isAccountError } from "./errors.ts";
export type { Config } from "./config.ts";
export type { OtherEvents } from "./records.ts";
