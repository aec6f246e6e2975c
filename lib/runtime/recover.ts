/*
 * Panic recovery, the outermost middleware (SPEC §4.4, §7 "Handler panic"):
 * a throw or rejection below is cut quietly (`ErrAbortHandler`), answered
 * with its own 4xx (a latch error for bad input or a refusal), a 503
 * (ERR_DB_NOT_DURABLE: the change may be lost, so the client must not take
 * it as done) or a 500, through `ErrorPage` with a logged reference, else
 * plain text. Nothing of a 500's error reaches the client (a 4xx without
 * `ErrorPage` gets latch's reason and the reference); after the first byte
 * the response is cut, never spliced.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { isAbortHandler, isLatchError, NewRef, type HandlerFunc, type LatchError, type Logger, type Middleware } from "../http/index.ts";
import { writeErrorPage } from "../internal/index.ts";
import type { ErrorPageFunc } from "./options.ts";

/** The plain-text body of a 500 when no `ErrorPage` is set (SPEC §7). */
export const PLAIN_500: string = "Something went wrong.";

/** The plain-text body of a 503 (ERR_DB_NOT_DURABLE) when no `ErrorPage` is set. */
export const PLAIN_503: string = "Service unavailable: your change could not be confirmed. Please try again.";

/** Returns the panic-recovery middleware. */
export function recoverPanics(logger: Logger, errorPage: ErrorPageFunc | undefined): Middleware {
  return function recoverMiddleware(next: HandlerFunc): HandlerFunc {
    return function recoverPanics(req, res) {
      let result: unknown;
      try {
        result = next(req, res);
      } catch (err) {
        handlePanic(err, req, res, logger, errorPage);
        return;
      }
      // Only an async handler pays for the rejection callback; of what a JavaScript handler returns, only a promise is waited on.

      if (result instanceof Promise) return result.then(undefined, (err: unknown) => handlePanic(err, req, res, logger, errorPage));
      return undefined;
    };
  };
}

/** The plain-text body of a latch 4xx when no `ErrorPage` is set: latch's reason for the client (SPEC §2.2, "else the plain-text message") and the reference the log line carries. */
function plainClientError(message: string, ref: string): string {
  return `${message}\nReference: ${ref}`;
}

function isClientError(err: unknown): err is LatchError & { status: number } {
  return isLatchError(err) && typeof err.status === "number" && err.status >= 400 && err.status < 500;
}

function handlePanic(err: unknown, req: IncomingMessage, res: ServerResponse, logger: Logger, errorPage: ErrorPageFunc | undefined): void {
  if (isAbortHandler(err)) {
    res.destroy();
    return;
  }
  const ref = NewRef();
  const where = { ref, method: req.method, path: (req.url ?? "").split("?")[0] };
  if (isClientError(err) && !res.headersSent) {
    if (req.complete && !req.readableEnded) req.resume();
    dropBodyHeaders(res);
    // SPEC §2.2, §7: the application's ErrorPage words every error it renders (ErrOwnerBusy's too); the log keeps latch's.
    // Without one, the plain text is latch's reason (bad input is answered with its reason; it is text/plain under
    // nosniff, never markup) and the reference; the log keeps it once, at info (a client's fault; OWASP ASVS 5.0 §16.5.1).
    const logged = { method: req.method, code: err.code, reason: err.message };
    if (errorPage === undefined) logger.info("client error", { ref, status: err.status, path: where.path, ...logged });
    writeErrorPage(req, res, err.status, plainClientError(err.message, ref), { ErrorPage: errorPage, Logger: logger }, ref, logged);
    return;
  }
  if (res.headersSent || res.writableEnded) {
    logger.error("panic after response started; response cut", { ...where, error: err });
    res.destroy();
    return;
  }
  const unavailable = isLatchError(err) && err.code === "ERR_DB_NOT_DURABLE";
  const status = unavailable ? 503 : 500;
  logger.error(unavailable ? "unavailable" : "panic", { ...where, error: err });
  dropBodyHeaders(res);
  const text = `${unavailable ? PLAIN_503 : PLAIN_500}\nReference: ${ref}`;
  writeErrorPage(req, res, status, text, { ErrorPage: errorPage, Logger: logger }, ref);
}

// SPEC §4.4: recovery sits outside the security headers, so an error answer
// keeps them (the CSP too); only the failed response's own headers go.
function dropBodyHeaders(res: ServerResponse): void {
  for (const name of res.getHeaderNames()) {
    if (name.startsWith("content-security-policy")) continue;
    if (name === "set-cookie" || name.startsWith("content-")) res.removeHeader(name);
  }
}
