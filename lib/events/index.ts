/// <reference types="node" preserve="true" />
export { EventStore, auditStream } from "./store.ts";
export { MAX_EVENT_DATA } from "./event.ts";
export type { HistoryPart } from "./history.ts";
export { Schema } from "./schema.ts";
export { EventConflictError, isEventConflict } from "./errors.ts";
export type { Event, ActorLike } from "./event.ts";
// Named by the signatures above (issue 42: a public signature names only public types).
// EventsError as a type only: the base of EventConflictError, not a class to test with instanceof.
export type { EventsError } from "./errors.ts";
export type { EventInput } from "./event.ts";
export type { EventStoreOptions, AppendInput } from "./store.ts";
export type { OtherEvents } from "./history.ts";
export { EVENTS_ERROR_CODES } from "./errors.ts";
export type { EventsErrorCode } from "./errors.ts";
