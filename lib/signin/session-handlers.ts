/*
 * A person ending their own sessions: plain HTML form posts (no script
 * needed), each answering 303 to the sessions page. A subject only ever
 * touches its own sessions: the store filters every revocation by the
 * subject of the request's session, so another person's id ends nothing
 * and answers exactly like an unknown one.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { seeOther, readForm } from "../http/index.ts";
import type { AuthEventEmitter, Sessions } from "../session/index.ts";

/** What the handlers need from the component. */
export interface SessionHandlersContext {
  sessions: Sessions;
  signinPath: string;
  sessionsPath: string;
  emit: AuthEventEmitter;
  /** Runs `fn` in one transaction on the component's handle: an ending and its auth event commit together. */
  atomically: <T>(fn: () => T) => T;
}

/** Ends one of the subject's sessions (form field `id`, its public id); ending the current one signs out. */
export async function revokeSession(ctx: SessionHandlersContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const form = await readForm(req);
  const session = ctx.sessions.read(req);
  if (session === undefined) return seeOther(res, ctx.signinPath);
  const id = form.get("id") ?? "";
  // OWASP ASVS 5.0 §7.5.2: a person ends their own sessions; Revoke filters by the request's subject.
  if (id === session.PublicID) {
    ctx.atomically(() => {
      ctx.sessions.destroy(req, res);
      ctx.emit(req, { Kind: "signed_out", Subject: session.Subject });
    });
    return seeOther(res, ctx.signinPath);
  }
  ctx.atomically(() => {
    if (ctx.sessions.revoke(session.Subject, id))
      ctx.emit(req, { Kind: "sessions_ended", Subject: session.Subject, Reason: "revoked", Count: 1 });
  });
  seeOther(res, ctx.sessionsPath);
}

/** Ends every session of the subject except the current one. */
export function revokeOtherSessions(ctx: SessionHandlersContext, req: IncomingMessage, res: ServerResponse): void {
  const session = ctx.sessions.read(req);
  if (session === undefined) return seeOther(res, ctx.signinPath);
  ctx.atomically(() => {
    const count = ctx.sessions.revokeOthers(session);
    ctx.emit(req, { Kind: "sessions_ended", Subject: session.Subject, Reason: "revoke_others", Count: count });
  });
  seeOther(res, ctx.sessionsPath);
}
