/*
 * Cross-origin request protection after Go 1.25's
 * `http.crossOriginProtection`: no tokens, only what browsers say (the rule
 * is lib/internal's `crossOriginVerdict`: Fetch Metadata, else `Origin`).
 * Safe methods pass; a request with neither header (curl) passes unless `Strict`.
 */
import type { ServerResponse } from "node:http";
import { HTTPError } from "./errors.ts";
import { crossOriginVerdict, parseOrigin, writeText } from "../internal/index.ts";
import type { HandlerFunc, Middleware } from "./types.ts";

/** Options of `crossOriginProtection`. */
export interface CrossOriginOptions {
  /** The application's public origin, e.g. "https://example.com". */
  Origin: string;
  /** Refuse unsafe requests that carry neither Sec-Fetch-Site nor Origin. @default false */
  Strict?: boolean;
}

const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);

function refuse(res: ServerResponse): void {
  writeText(res, 403, "403 forbidden: cross-origin request refused");
}

/**
 * Returns middleware refusing cross-origin unsafe requests with 403.
 * Put it in `Options.Wrap`, in front of every state-changing route.
 * Throws `HTTPError` `ERR_HTTP_INVALID_OPTIONS` when `Origin` is not an http or https URL.
 *
 * @example
 * Wrap: (next) => crossOriginProtection({ Origin: "https://example.com" })(next)
 */
export function crossOriginProtection(options: CrossOriginOptions): Middleware {
  const origin = parseOrigin(options.Origin);
  if (origin === undefined) throw new HTTPError("ERR_HTTP_INVALID_OPTIONS", "cross-origin protection: Origin must be an http or https URL");
  const strict = options.Strict === true;
  return function crossOriginMiddleware(next: HandlerFunc): HandlerFunc {
    return function crossOriginProtection(req, res) {
      if (SAFE.has(req.method ?? "GET")) return next(req, res);
      const verdict = crossOriginVerdict(req, origin);
      if (verdict === "cross-origin" || (verdict === "unknown" && strict)) return refuse(res);
      return next(req, res);
    };
  };
}
