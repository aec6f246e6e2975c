/*
 * The small answers every component gives: a JSON document, a 303
 * redirect, an error through the app's error page (the plain-text answer is
 * lib/internal's `writeText`). One implementation, so Content-Type, length
 * and caching headers are the same everywhere.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "./logger.ts";
import { NewRef } from "./ref.ts";
import { writeText } from "../internal/index.ts";

/** Where `writeErrorPage` answers: the app's error page (the runtime's `Ctx.ErrorPage`) and the logger for its reference. */
export interface ErrorPageTarget {
  readonly ErrorPage?: ((req: IncomingMessage, res: ServerResponse, status: number, ref: string) => void) | undefined;
  readonly Logger?: Pick<Logger, "info"> | undefined;
}

/** Ends `res` with a JSON body (`Cache-Control: no-store`). */
export function writeJSON(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value) + "\n";
  res.statusCode = status;
  res.setHeader("Content-Type", "application/json; charset=utf-8");
  res.setHeader("Cache-Control", "no-store");
  res.setHeader("Content-Length", Buffer.byteLength(body));
  res.end(body);
}

/** Ends `res` with `303 See Other` to `location` (a path or URL the caller vouches for). */
export function seeOther(res: ServerResponse, location: string): void {
  res.statusCode = 303;
  res.setHeader("Location", location);
  res.setHeader("Cache-Control", "no-store");
  res.end();
}

/**
 * Answers an error `status` through `target.ErrorPage` with a fresh
 * reference, logged next to `message` (SPEC §2.2 ErrorPage), or, when there
 * is no error page (nil is legal), as the plain text `message`. `message`
 * reaches the client only in the plain-text answer; keep secrets and raw
 * client input out of it. The runtime's `writeError` and lib/manifest's
 * refusals both answer through it.
 */
export function writeErrorPage(req: IncomingMessage, res: ServerResponse, status: number, message: string, target: ErrorPageTarget | undefined): void {
  if (target?.ErrorPage === undefined) return writeText(res, status, message);
  const ref = NewRef();
  target.Logger?.info("error page", { ref, status, reason: message, path: (req.url ?? "").split("?")[0] });
  target.ErrorPage(req, res, status, ref);
  if (!res.writableEnded) res.end();
}
