/*
 * The session guards (`RequireSession`, `LoadSession`, `RequireFreshSession`), sign-out and a person
 * ending their own sessions: plain HTML form posts answering 303. A subject only ever touches its own
 * sessions: every revocation filters by the subject of the request's session, so another person's id
 * ends nothing and answers exactly like an unknown one.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { seeOther, readForm, type Clock, type HandlerFunc } from "../http/index.ts";
import { awayAndBack, isStale, requestTarget, writeText } from "../internal/index.ts";
import type { AuthEventEmitter, Sessions } from "../session/index.ts";
import { refusedCrossOrigin, wantsHTML } from "./request.ts";

/** What the handlers need from the component. */
export interface SessionHandlersContext {
  sessions: Sessions;
  signinPath: string;
  sessionsPath: string;
  stalePath: string;
  origin: string;
  clock: Clock;
  emit: AuthEventEmitter;
  /** Runs `fn` in one transaction on the component's handle: an ending and its auth event commit together. */
  atomically: <T>(fn: () => T) => T;
}

/** `POST /signout`: ends the session and clears its cookie. */
export function signout(ctx: SessionHandlersContext, req: IncomingMessage, res: ServerResponse): void {
  // OWASP ASVS 5.0 §3.5.1: a cross-site form must not end the person's session; refused here, as Begin does.
  if (refusedCrossOrigin(ctx.origin, req, res)) return;
  const subject = ctx.sessions.read(req)?.Subject;
  ctx.atomically(() => {
    ctx.sessions.destroy(req, res);
    if (subject !== undefined) ctx.emit(req, { Kind: "signed_out", Subject: subject });
  });
  seeOther(res, ctx.signinPath);
}

/** Ends one of the subject's sessions (form field `id`, its public id); ending the current one signs out. */
export async function revokeSession(ctx: SessionHandlersContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  // OWASP ASVS 5.0 §3.5.1: a cross-site form must not end the person's sessions; refused here, as Begin does.
  if (refusedCrossOrigin(ctx.origin, req, res)) return;
  const form = await readForm(req);
  const session = ctx.sessions.read(req);
  if (session === undefined) return seeOther(res, ctx.signinPath);
  const id = form.get("id") ?? "";
  // OWASP ASVS 5.0 §7.5.2: a person ends their own sessions; Revoke filters by the request's subject.
  if (id === session.PublicID) return signout(ctx, req, res);
  ctx.atomically(() => {
    if (ctx.sessions.revoke(session.Subject, id))
      ctx.emit(req, { Kind: "sessions_ended", Subject: session.Subject, Reason: "revoked", Count: 1 });
  });
  seeOther(res, ctx.sessionsPath);
}

/** Ends every session of the subject except the current one. */
export function revokeOtherSessions(ctx: SessionHandlersContext, req: IncomingMessage, res: ServerResponse): void {
  // OWASP ASVS 5.0 §3.5.1: a cross-site form must not end the person's sessions; refused here, as Begin does.
  if (refusedCrossOrigin(ctx.origin, req, res)) return;
  const session = ctx.sessions.read(req);
  if (session === undefined) return seeOther(res, ctx.signinPath);
  ctx.atomically(() => {
    const count = ctx.sessions.revokeOthers(session);
    ctx.emit(req, { Kind: "sessions_ended", Subject: session.Subject, Reason: "revoke_others", Count: count });
  });
  seeOther(res, ctx.sessionsPath);
}

// Without a session: HTML requests are redirected (303) to sign in, others get 401.
function refuse(req: IncomingMessage, res: ServerResponse, location: string, status: number, text: string): void {
  // RFC 9110 §11.6.1, RFC 6750 §3: a request that brought its own credentials (an agent's bearer token) is answered 401,
  // never sent to a sign-in page it cannot use, whatever it accepts (issue 39: a person's approval routes).
  if (wantsHTML(req) && req.headers.authorization === undefined) return seeOther(res, location);
  writeText(res, status, `${status} ${text}`);
}

/** `RequireSession`: passes with a live session (bound to the request by reading it), else refuses. */
export function requireSession(ctx: SessionHandlersContext, next: HandlerFunc): HandlerFunc {
  return function requireSession(req, res) {
    if (ctx.sessions.read(req) === undefined) return refuse(req, res, ctx.signinPath, 401, "unauthorized: sign in first");
    return next(req, res);
  };
}

/** `LoadSession`: binds the session when there is one, and passes either way. */
export function loadSession(sessions: Sessions, next: HandlerFunc): HandlerFunc {
  return function loadSession(req, res) {
    sessions.read(req);
    return next(req, res);
  };
}

/** `RequireFreshSession(maxAge)`: passes with a session authenticated within `maxAge` ms, else refuses. */
export function requireFreshSession(ctx: SessionHandlersContext, maxAge: number, next: HandlerFunc): HandlerFunc {
  return function requireFreshSession(req, res) {
    const session = ctx.sessions.read(req);
    if (session === undefined) return refuse(req, res, ctx.signinPath, 401, "unauthorized: sign in first");
    if (isStale(session.AuthTime, ctx.clock.now(), maxAge)) {
      if (!wantsHTML(req)) return writeText(res, 401, "401 unauthorized: session too old, authenticate again");
      // next= is a local path: an absolute-form request target (RFC 9112 §3.2.2) must not put a foreign URL there.
      // A form POST cannot be replayed by a redirect back: only safe requests name themselves as next, remembered
      // in this browser too, so the way back survives the emailed link, the code and the passkey.
      const safe = req.method === "GET" || req.method === "HEAD";
      return seeOther(res, safe ? awayAndBack(res, ctx.origin, ctx.stalePath, requestTarget(req)) : ctx.stalePath);
    }
    return next(req, res);
  };
}
