/// <reference types="node" preserve="true" />
export { Sessions, DefaultSessionTTL } from "./store.ts";
export { NewToken, HashToken, TOKEN_PATTERN } from "./token.ts";
export { currentSession, userID } from "./current.ts";
export { Schema } from "./schema.ts";
export { describeUserAgent } from "./user-agent.ts";
export { logAuthEvents, fanOutAuthEvents, authEventEmitter } from "./auth-events.ts";
export type { Identity, Session } from "./session.ts";
export type { SessionSummary, SessionsOptions } from "./store.ts";
export type { AuthEvent, AuthEventKind, AuthEventSink, AuthEventEmitter } from "./auth-events.ts";
export { accountRows } from "./account-rows.ts";
