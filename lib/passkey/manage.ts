/*
 * Managing one's own passkeys: plain HTML form posts (no script needed),
 * each answering 303 to the management page. A subject only ever touches
 * its own credentials (the store filters by subject); deleting one, which
 * removes a second factor, needs a fresh session.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { seeOther as redirect, readForm } from "../http/index.ts";
import type { Session, Sessions } from "../session/index.ts";
import type { Config } from "./config.ts";
import type { PasskeyStore } from "./store.ts";

/** What the management handlers need from the component. */
export interface ManageContext {
  config: Config;
  sessions: Sessions;
  store: PasskeyStore;
  isFresh: (session: Session) => boolean;
  /** Called after one of `session`'s subject's passkeys was deleted (event, end the other sessions). */
  removed: (req: IncomingMessage, session: Session) => void;
  /** Runs `fn` in one transaction on the component's handle: a change and its auth events commit together. */
  atomically: <T>(fn: () => T) => T;
}

/** Renames one of the session subject's passkeys (form fields `id`, `name`). */
export async function renameCredential(ctx: ManageContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const form = await readForm(req);
  const session = ctx.sessions.read(req);
  // SPEC §5.5: an absent session is refused.
  if (session === undefined) return redirect(res, ctx.config.SigninPath);
  ctx.store.renameCredential(session.Subject, form.get("id") ?? "", form.get("name") ?? "");
  redirect(res, ctx.config.ManagePath ?? ctx.config.SignedInPath);
}

/** Deletes one of the session subject's passkeys (form field `id`); a stale session is sent to confirm first. */
export async function deleteCredential(ctx: ManageContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const form = await readForm(req);
  const session = ctx.sessions.read(req);
  // SPEC §5.5: an absent session is refused.
  if (session === undefined) return redirect(res, ctx.config.SigninPath);
  const manage = ctx.config.ManagePath ?? ctx.config.SignedInPath;
  // SPEC §4.2, §5.5: removing a second factor needs a fresh session; only an assertion or a re-sign-in makes one.
  if (!ctx.isFresh(session)) {
    return redirect(res, `${ctx.config.StalePath ?? ctx.config.ConfirmPath}?next=${encodeURIComponent(manage)}`);
  }
  // SPEC §6.2: the removal and its auth events commit together, or nothing is removed.
  ctx.atomically(() => {
    if (ctx.store.deleteCredential(session.Subject, form.get("id") ?? "")) ctx.removed(req, session);
  });
  redirect(res, manage);
}
