/// <reference types="node" preserve="true" />
export { create, Operators, MAX_REASON, PEOPLE_PAGE, SUSPENDED_REFUSAL } from "./operators.ts";
export { Schema } from "./schema.ts";
export { accountRows } from "./account-rows.ts";
export { SHOWN, RECENT_EVENTS, SHOWN_ROWS } from "./person.ts";
export { OPERATOR_EVENTS } from "./actions.ts";
export { isOperatorsError } from "./errors.ts";
export type { Config } from "./config.ts";
export type { PeoplePage, PersonView } from "./operators.ts";
export type { ShownTable, ShownEvent } from "./person.ts";
export type { Suspension } from "./actions.ts";
