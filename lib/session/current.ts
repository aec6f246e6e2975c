/*
 * The request's current session, in a lib/internal request slot (docs/design.md §3): `Sessions.read`
 * records what it found (`null`: none) so later reads in the request cost nothing; `create`/`destroy` update it.
 */
import type { IncomingMessage } from "node:http";
import { requestSlot } from "../internal/index.ts";
import type { Session } from "./session.ts";

const current = requestSlot<Session | null>();

/** Binds `session` (or `null`: looked up, none) to `req`. */
export function setCurrentSession(req: IncomingMessage, session: Session | null): void {
  current.set(req, session);
}

/** Returns the binding: a session, `null` (looked up, none), or undefined (not looked up). */
export function lookedUp(req: IncomingMessage): Session | null | undefined {
  return current.get(req);
}

/** Returns the session bound to the request, or undefined. */
export function currentSession(req: IncomingMessage): Session | undefined {
  return current.get(req) ?? undefined;
}

/** Returns the request's subject as a numeric user id, or undefined (the contract's `(0, false)`; always under sign-in). */
export function userID(req: IncomingMessage): number | undefined {
  const subject = current.get(req)?.Subject;
  if (subject === undefined || !/^[1-9][0-9]{0,15}$/.test(subject)) return undefined;
  const id = Number(subject);
  return Number.isSafeInteger(id) ? id : undefined;
}
