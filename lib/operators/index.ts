/// <reference types="node" preserve="true" />
export { create, Operators } from "./operators.ts";
export { Schema } from "./schema.ts";
export { accountRows } from "./account-rows.ts";
export { isOperatorsError } from "./errors.ts";
