/// <reference types="node" preserve="true" />
export { EventStore, auditStream } from "./store.ts";
export { MAX_EVENT_DATA } from "./event.ts";
export type { HistoryPart } from "./history.ts";
export { Schema } from "./schema.ts";
export { EventConflictError, isEventConflict } from "./errors.ts";
export type { Event, ActorLike } from "./event.ts";
