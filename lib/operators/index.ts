/// <reference types="node" preserve="true" />
export { create, Operators } from "./operators.ts";
export { Schema } from "./schema.ts";
export { accountRows } from "./account-rows.ts";
export { isOperatorsError } from "./errors.ts";
// Named by the signatures above (issue 42: a public signature names only public types).
// OperatorsError as a type only: the narrowing of isOperatorsError, not a class to test with instanceof.
export type { OperatorsError } from "./errors.ts";
export type { Config } from "./config.ts";
export type { PeoplePage, PersonView } from "./operators.ts";
export { OPERATORS_ERROR_CODES } from "./errors.ts";
export type { OperatorsErrorCode } from "./errors.ts";
export type { Suspension } from "./actions.ts";
export type { ShownTable, ShownEvent } from "./person.ts";
