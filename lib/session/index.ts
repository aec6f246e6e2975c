/// <reference types="node" preserve="true" />
export { Sessions, DefaultSessionTTL, DEFAULT_IDLE_TIMEOUT, DEFAULT_TOUCH_INTERVAL, SESSION_COOKIE } from "./store.ts";
export { NewToken, HashToken, TOKEN_PATTERN } from "./token.ts";
export { parseCookies, readCookie, serializeCookie, cookieName, appendSetCookie } from "../http/index.ts";
export { currentSession, setCurrentSession, userID } from "./current.ts";
export { Schema } from "./schema.ts";
export { describeUserAgent, MAX_DEVICE_LENGTH } from "./user-agent.ts";
export { AUTH_EVENT_KINDS, logAuthEvents, fanOutAuthEvents } from "./auth-events.ts";
export type { Identity, Session } from "./session.ts";
export type { SessionSummary, SessionsOptions } from "./store.ts";
export type { AuthEvent, AuthEventKind, AuthEventSink } from "./auth-events.ts";
export type { CookieAttributes } from "../http/index.ts";
