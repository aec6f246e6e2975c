/*
 * One base class for every error latch throws across a module boundary:
 * `code` is a stable `ERR_<MODULE>_<WHAT>` (never reused), `status` a 4xx
 * panic recovery answers instead of 500; messages read "<operation>:
 * <reason>" and never carry secrets or raw user input.
 */
import { hasErrorCode } from "../internal/index.ts";

/** Options accepted by `LatchError`. */
export interface LatchErrorOptions {
  /** HTTP status to answer with when this error escapes a handler; only a 4xx is kept (anything else answers 500). */
  status?: number;
  /** The underlying error. */
  cause?: unknown;
}

/** Base class of every coded latch error. */
export class LatchError<C extends string = string> extends Error {
  override name: string = "LatchError";
  /** Stable machine-readable code, `ERR_<MODULE>_<WHAT>`. */
  readonly code: C;
  /** HTTP status for the client, when the error describes bad input. */
  readonly status: number | undefined;

  constructor(code: C, message: string, options: LatchErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = options.status;
  }
}

/**
 * Reports whether `e` is a latch error. It checks the shape rather than
 * `instanceof`, so vendored copies of latch recognise each other's errors.
 */
export function isLatchError(e: unknown): e is LatchError {
  if (!(e instanceof Error) || !("code" in e)) return false;
  const code: unknown = e.code;
  return typeof code === "string" && code.startsWith("ERR_");
}

/** The codes thrown by the runtime module, each equal to its key. */
export const HTTP_ERROR_CODES = {
  ERR_HTTP_BODY_TOO_LARGE: "ERR_HTTP_BODY_TOO_LARGE",
  ERR_HTTP_BODY_TOO_FRAGMENTED: "ERR_HTTP_BODY_TOO_FRAGMENTED",
  ERR_HTTP_UNSUPPORTED_MEDIA_TYPE: "ERR_HTTP_UNSUPPORTED_MEDIA_TYPE",
  ERR_HTTP_MALFORMED_BODY: "ERR_HTTP_MALFORMED_BODY",
  ERR_HTTP_INVALID_OPTIONS: "ERR_HTTP_INVALID_OPTIONS",
  ERR_HTTP_ABORT_HANDLER: "ERR_HTTP_ABORT_HANDLER",
  ERR_HTTP_NO_RENDER: "ERR_HTTP_NO_RENDER",
  ERR_HTTP_NO_CTX: "ERR_HTTP_NO_CTX",
} as const;

/** A runtime error code. */
export type HTTPErrorCode = keyof typeof HTTP_ERROR_CODES;

/** An error from the runtime: bad request bodies, invalid `Options`. */
export class HTTPError extends LatchError<HTTPErrorCode> {
  override name: string = "HTTPError";
}

/** Reports whether `e` is an `HTTPError` (by its code, so copies from another latch match). */
export function isHTTPError(e: unknown): e is HTTPError {
  return hasErrorCode(e, HTTP_ERROR_CODES);
}

/**
 * Thrown (or rejected) from a handler to abort the response quietly: the
 * connection is cut and nothing is logged. The contract's `http.ErrAbortHandler`.
 */
export const ErrAbortHandler: HTTPError = new HTTPError("ERR_HTTP_ABORT_HANDLER", "http: abort handler");

/** Reports whether `e` is the `ErrAbortHandler` sentinel (or a copy of it from another latch). */
export function isAbortHandler(e: unknown): boolean {
  return isLatchError(e) && e.code === "ERR_HTTP_ABORT_HANDLER";
}
