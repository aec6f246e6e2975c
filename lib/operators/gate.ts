/*
 * Who may reach an operator route, decided before anything else is: the request's session subject must be one of the
 * configured operators, else the route does not exist for it (404, whoever asks: signed out, signed in, an agent's
 * bearer token). An operator's session must then be fresh and confirmed by a passkey, else the step-up page.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { seeOther, type Clock, type HandlerFunc, type Middleware } from "../http/index.ts";
import { awayAndBack, isStale, requestTarget, writeText } from "../internal/index.ts";
import { isPasskeyConfirmed } from "../passkey/index.ts";
import type { Session, Sessions } from "../session/index.ts";

/** What the gate needs. */
export interface GateDeps {
  operators: ReadonlySet<string>;
  sessions: Sessions;
  origin: string;
  stalePath: string;
  freshFor: number;
  clock: Clock;
  notFound: HandlerFunc;
}

/** The operator's session when `req` comes from one (no bearer credential, the subject listed), else undefined. */
export function operatorSession(deps: GateDeps, req: IncomingMessage): Session | undefined {
  // An agent's token never acts as an operator, even alongside a session cookie (RFC 6750 §2.1: it is the credential).
  if (req.headers.authorization !== undefined) return undefined;
  const session = deps.sessions.read(req);
  return session !== undefined && deps.operators.has(session.Subject) ? session : undefined;
}

/** The operators' middleware: 404 for anyone not an operator; a stale or passkey-less operator session steps up. */
export function requireOperator(deps: GateDeps): Middleware {
  return (next) =>
    function requireOperator(req: IncomingMessage, res: ServerResponse) {
      const session = operatorSession(deps, req);
      // OWASP ASVS 5.0 §8.2.1: operator functions exist only for operators; 404 tells no one else they are there.
      if (session === undefined) return deps.notFound(req, res);
      // OWASP ASVS 5.0 §6.3.3, §7.4.5 (issue 41): an operator acts only within a recent passkey assertion (SPEC §4.2).
      if (isStale(session.AuthTime, deps.clock.now(), deps.freshFor) || !isPasskeyConfirmed(session)) {
        const accepts = req.headers.accept ?? "";
        if (!accepts.includes("text/html")) return writeText(res, 401, "401 unauthorized: confirm with a passkey first");
        // Only a safe request names itself as the way back: a form POST cannot be replayed by a redirect.
        const safe = req.method === "GET" || req.method === "HEAD";
        return seeOther(res, safe ? awayAndBack(res, deps.origin, deps.stalePath, requestTarget(req)) : deps.stalePath);
      }
      return next(req, res);
    };
}
