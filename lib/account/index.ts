/// <reference types="node" preserve="true" />
export { create, Account, REVERSE_WINDOW } from "./account.ts";
export { Schema } from "./schema.ts";
export { isAccountError } from "./errors.ts";
export type { Config } from "./config.ts";
export type { OtherEvents } from "./records.ts";
// Named by the signatures above (issue 42: a public signature names only public types).
// AccountError as a type only: the narrowing of isAccountError, not a class to test with instanceof.
export type { AccountError } from "./errors.ts";
export { ACCOUNT_ERROR_CODES } from "./errors.ts";
export type { AccountErrorCode } from "./errors.ts";
