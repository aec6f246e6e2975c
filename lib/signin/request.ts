/* Per-request accessors: `From` and `SessionFrom` read the session the store bound to the request ("both work downstream"). */
import type { IncomingMessage } from "node:http";
import { currentSession, type Identity } from "../session/index.ts";

/** Returns the identity of the request's session (bound by `RequireSession`), or undefined. */
export function From(req: IncomingMessage): Identity | undefined {
  const session = currentSession(req);
  // Only the identity: the session's row key and bookkeeping stay inside.
  return session === undefined ? undefined : { Subject: session.Subject, Method: session.Method, AuthTime: session.AuthTime };
}

/** Returns the identity of the request's current session (the session module's accessor), or undefined. */
export function SessionFrom(req: IncomingMessage): Identity | undefined {
  return From(req);
}

/** Reports whether the client prefers an HTML answer (a browser navigation). */
export function wantsHTML(req: IncomingMessage): boolean {
  const accept = req.headers.accept;
  return accept !== undefined && accept.includes("text/html");
}

/** Reports whether the client asked for JSON (an API client, answered with status codes rather than redirects). */
export function wantsJSON(req: IncomingMessage): boolean {
  const accept = req.headers.accept;
  return accept !== undefined && accept.includes("application/json");
}
