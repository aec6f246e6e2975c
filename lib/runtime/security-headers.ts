/*
 * Baseline security headers (SPEC §4.4): helmet's defaults, tightened where
 * latch's own pages allow it (no inline styles, no framing at all),
 * computed once at boot.
 */
import type { HandlerFunc, Middleware } from "../http/index.ts";
import { BaselineResponse, prepareBaseline } from "./baseline-response.ts";

/** Options of `securityHeaders`. */
export interface SecurityHeadersOptions {
  /** Replaces the Content-Security-Policy. @default DEFAULT_CSP (+ upgrade-insecure-requests on https) */
  CSP?: string;
  /** Public origin; an https origin adds Strict-Transport-Security. */
  Origin?: string;
}

/** The baseline Content-Security-Policy (CSP Level 3): the application's own origin for all, no plugins, no framing, `<base>` pinned. */

export const DEFAULT_CSP: string = [
  "default-src 'self'",
  "base-uri 'self'",
  "font-src 'self' data:",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "img-src 'self' data:",
  "object-src 'none'",
  "script-src 'self'",
  "script-src-attr 'none'",
  "style-src 'self'",
].join("; ");

/** Returns the header list `securityHeaders` sets, in order. */
export function securityHeaderList(options: SecurityHeadersOptions = {}): [string, string][] {
  const https = options.Origin?.startsWith("https://") === true;
  const csp = options.CSP ?? (https ? `${DEFAULT_CSP}; upgrade-insecure-requests` : DEFAULT_CSP);
  const list: [string, string][] = [
    ["Content-Security-Policy", csp],
    ["Cross-Origin-Opener-Policy", "same-origin"],
    ["Cross-Origin-Resource-Policy", "same-origin"],
    ["Origin-Agent-Cluster", "?1"],
    // No-referrer also keeps emailed-link tokens out of Referer headers.
    ["Referrer-Policy", "no-referrer"],
    ["X-Content-Type-Options", "nosniff"],
    ["X-DNS-Prefetch-Control", "off"],
    ["X-Download-Options", "noopen"],
    ["X-Frame-Options", "DENY"],
    ["X-Permitted-Cross-Domain-Policies", "none"],
    ["X-XSS-Protection", "0"],
  ];
  // RFC 6797 §7.2: HSTS is only meaningful (and only honoured) over https.
  if (https) list.push(["Strict-Transport-Security", "max-age=31536000; includeSubDomains"]);
  return list;
}

/** Returns the middleware setting the baseline security headers. */
export function securityHeaders(options: SecurityHeadersOptions = {}): Middleware {
  const list = securityHeaderList(options);
  const baseline = prepareBaseline(list);
  return function securityHeadersMiddleware(next: HandlerFunc): HandlerFunc {
    return function setSecurityHeaders(req, res) {
      // Serve's responses hold the baseline until the write; any other response gets it now, one setHeader each.
      const held = res instanceof BaselineResponse && res.holdBaseline(baseline);
      if (!held) for (const [name, value] of list) res.setHeader(name, value);
      return next(req, res);
    };
  };
}
