/*
 * Errors thrown by the router. All of them are programmer errors found at
 * registration (a bad pattern, a conflict, a missing handler) or a broken
 * middleware (calling `next` twice); bad requests never throw, they are
 * answered with a 4xx by `Mux.ServeHTTP`.
 */
import { LatchError } from "../http/index.ts";
import { hasErrorCode } from "../internal/index.ts";

/** The codes thrown by the router module, each equal to its key. */
export const ROUTER_ERROR_CODES = {
  ERR_ROUTER_INVALID_PATTERN: "ERR_ROUTER_INVALID_PATTERN",
  ERR_ROUTER_CONFLICT: "ERR_ROUTER_CONFLICT",
  ERR_ROUTER_INVALID_HANDLER: "ERR_ROUTER_INVALID_HANDLER",
  ERR_ROUTER_NEXT_TWICE: "ERR_ROUTER_NEXT_TWICE",
} as const;

/** A router error code. */
export type RouterErrorCode = keyof typeof ROUTER_ERROR_CODES;

/** An error from the router: an invalid or conflicting pattern, or a middleware calling `next` twice. */
export class RouterError extends LatchError<RouterErrorCode> {
  override name: string = "RouterError";
}

/** Reports whether `e` is a router error (checked by `code`, so copies of latch agree). */
export function isRouterError(e: unknown): e is RouterError {
  return hasErrorCode(e, ROUTER_ERROR_CODES);
}
