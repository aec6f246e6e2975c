/// <reference types="node" preserve="true" />
export { Sessions, DefaultSessionTTL, DEFAULT_IDLE_TIMEOUT, DEFAULT_TOUCH_INTERVAL, SESSION_COOKIE } from "./store.ts";
export { NewToken, HashToken, TOKEN_PATTERN } from "./token.ts";
export { currentSession, setCurrentSession, userID } from "./current.ts";
export { Schema } from "./schema.ts";
export { describeUserAgent, MAX_DEVICE_LENGTH } from "./user-agent.ts";
export { AUTH_EVENT_KINDS, logAuthEvents, fanOutAuthEvents } from "./auth-events.ts";
export type { Identity, Session, SessionSummary, SessionsOptions } from "./store.ts";
export type { AuthEvent, AuthEventKind, AuthEventSink } from "./auth-events.ts";
