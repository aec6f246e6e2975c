/* Per-request accessors: `From` and `SessionFrom` read the session the store bound to the request ("both work downstream"). */
import type { IncomingMessage, ServerResponse } from "node:http";
import { crossOriginVerdict, writeText } from "../internal/index.ts";
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

/**
 * Refuses a cross-origin POST with 403 (W3C Fetch Metadata §2.4, RFC 6454 §7) even without
 * `crossOriginProtection` in `Wrap`: every form handler of the component checks it itself (OWASP ASVS 5.0
 * §3.5.1). A cross-site form starting a sign-in would bind the victim's browser to the attacker's link (login
 * CSRF); one posting to sign-out or a session revocation would end the victim's sessions. Returns true when refused.
 */
export function refusedCrossOrigin(origin: string, req: IncomingMessage, res: ServerResponse): boolean {
  if (crossOriginVerdict(req, origin) !== "cross-origin") return false;
  writeText(res, 403, "403 forbidden: cross-origin request refused");
  return true;
}
