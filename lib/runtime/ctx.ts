/*
 * The request context (SPEC §2.2). Its `Actor` is derived from how the
 * request authenticated (lib/agent `actorFrom`), so nothing else can set
 * it; identity and locale stay out of `Ctx`. The shared part is bound to
 * the connection, not to each request: a WeakMap entry on a fresh key costs
 * about half a microsecond of collector bookkeeping, and a keep-alive
 * connection carries many requests of one runtime.
 */
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { actorFrom } from "../agent/index.ts";
import { HTTPError, NewRef, type HandlerFunc, type Middleware } from "../http/index.ts";
import { writeErrorPage } from "../internal/index.ts";
import type { Ctx } from "./options.ts";

/** The part of `Ctx` every request of one runtime shares. */
export type SharedCtx = Omit<Ctx, "Actor">;

/** A handler that receives the request's `Ctx`. */
export type CtxHandlerFunc = (ctx: Ctx, req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

const shared = new WeakMap<Socket, SharedCtx>();

/** Returns the runtime's middleware binding `base` to every request; `Handler` installs it. */
export function bindCtx(base: SharedCtx): Middleware {
  const frozen = Object.freeze({ ...base });
  return function ctxMiddleware(next: HandlerFunc): HandlerFunc {
    return function bindRequestCtx(req, res) {
      const socket = req.socket;
      if (shared.get(socket) !== frozen) shared.set(socket, frozen);
      return next(req, res);
    };
  };
}

/**
 * Returns the request's `Ctx`, or undefined for a request the runtime
 * never saw (a handler called directly). Read it after the middleware that
 * authenticates the caller: `Actor` reflects the request at the call.
 */
export function ctxFrom(req: IncomingMessage): Ctx | undefined {
  const socket: Socket | undefined = req.socket;
  const base = socket === undefined || socket === null ? undefined : shared.get(socket);
  return base === undefined ? undefined : Object.freeze({ ...base, Actor: actorFrom(req) });
}

/**
 * Adapts a handler that takes the `Ctx` to a `HandlerFunc`. Throws (a
 * logged 500) when the runtime did not build a `Ctx` for the request.
 *
 * @example
 * mux.Handle("GET /api/whoami", withCtx((ctx, req, res) => writeJSON(res, 200, { actor: ctx.Actor.String() })));
 */
export function withCtx(handler: CtxHandlerFunc): HandlerFunc {
  return function withCtx(req, res) {
    const ctx = ctxFrom(req);
    if (ctx === undefined) throw new HTTPError("ERR_HTTP_NO_CTX", "withCtx: no Ctx; the handler runs outside the runtime's Handler");
    return handler(ctx, req, res);
  };
}

/**
 * Answers an error `status` through `Ctx.ErrorPage` with a fresh reference
 * (logged next to `message`), or, unset (SPEC §2.2), the plain text
 * `message`: keep secrets and raw input out of it.
 */

export function writeError(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  message: string = `${status} ${STATUS_CODES[status] ?? "error"}`,
): void {
  writeErrorPage(req, res, status, message, ctxFrom(req), NewRef());
}
