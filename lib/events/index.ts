/// <reference types="node" preserve="true" />
export { EventStore, auditStream, MAX_READ } from "./store.ts";
export { MAX_EVENT_DATA, EVENT_TYPE_PATTERN, AUDIT_ACTOR_PATTERN } from "./event.ts";
export { Schema } from "./schema.ts";
export { EVENTS_ERROR_CODES, EventsError, EventConflictError, isEventsError, isEventConflict } from "./errors.ts";
export type { EventStoreOptions, AppendInput } from "./store.ts";
export type { Event, EventInput, ActorLike } from "./event.ts";
export type { EventsErrorCode } from "./errors.ts";
