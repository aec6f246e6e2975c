/* Per-request identity binding and content negotiation helpers. */
import type { IncomingMessage } from "node:http";
import { Current, type Identity } from "../session/index.ts";

const identities = new WeakMap<IncomingMessage, Identity>();

/** Binds the identity; called by `RequireSession`. */
export function bindIdentity(req: IncomingMessage, identity: Identity): void {
  identities.set(req, { Subject: identity.Subject, Method: identity.Method, AuthTime: identity.AuthTime });
}

/** Returns the identity bound by `RequireSession`, or undefined. */
export function From(req: IncomingMessage): Identity | undefined {
  return identities.get(req);
}

/** Returns the identity of the request's current session (session module accessor), or undefined. */
export function SessionFrom(req: IncomingMessage): Identity | undefined {
  const session = Current(req);
  return session === undefined ? undefined : { Subject: session.Subject, Method: session.Method, AuthTime: session.AuthTime };
}

/** Reports whether the client prefers an HTML answer (a browser navigation). */
export function wantsHTML(req: IncomingMessage): boolean {
  const accept = req.headers.accept;
  return accept !== undefined && accept.includes("text/html");
}
