export { Sessions, DefaultSessionTTL, DEFAULT_IDLE_TIMEOUT, DEFAULT_TOUCH_INTERVAL, SESSION_COOKIE } from "./store.ts";
export { NewToken, HashToken } from "./token.ts";
export { parseCookies, readCookie, serializeCookie, cookieName, appendSetCookie } from "../http/index.ts";
export { currentSession, setCurrentSession, userID } from "./current.ts";
export { Schema } from "./schema.ts";
export type { Identity, Session, SessionsOptions } from "./store.ts";
export type { CookieAttributes } from "../http/index.ts";
