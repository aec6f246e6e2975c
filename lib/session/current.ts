/*
 * Per-request accessors (DESIGN.md: per-request values in WeakMaps). A
 * session middleware (signin's `RequireSession`) binds the request's
 * session once; handlers downstream read it.
 */
import type { IncomingMessage } from "node:http";
import type { Session } from "./store.ts";

const current = new WeakMap<IncomingMessage, Session>();

/** Binds `session` to `req`; called by session middleware. */
export function SetCurrent(req: IncomingMessage, session: Session): void {
  current.set(req, session);
}

/** Returns the session bound to the request, or undefined. */
export function Current(req: IncomingMessage): Session | undefined {
  return current.get(req);
}

/**
 * Returns the numeric user id of the request's session for applications
 * whose subjects are numeric strings, or undefined (the contract's
 * `(0, false)`), as it is under the sign-in component, whose subjects are
 * email addresses. Never scope data on a missing id.
 */
export function UserID(req: IncomingMessage): number | undefined {
  const subject = current.get(req)?.Subject;
  if (subject === undefined || !/^[1-9][0-9]{0,15}$/.test(subject)) return undefined;
  const id = Number(subject);
  return Number.isSafeInteger(id) ? id : undefined;
}
