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
// Named by the signatures above (issue 42: a public signature names only public types): AuthEventKind is one of these.
export { AUTH_EVENT_KINDS } from "./auth-events.ts";
