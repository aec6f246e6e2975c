// The request's query, taken by hand (`new URL(req.url, base)` throws for `GET http://a:99999/x`), and the one rule for redirect targets.
import type { IncomingMessage } from "node:http";

/** Returns the request's query parameters (empty when there is none). Never throws. */
export function queryParams(req: IncomingMessage): URLSearchParams {
  const url = req.url ?? "";
  const q = url.indexOf("?");
  return new URLSearchParams(q < 0 ? "" : url.slice(q + 1));
}

/**
 * Reports whether `target` is a path on this origin, safe as a redirect
 * target: one leading "/", at most 2048 characters of visible ASCII without
 * a backslash. The one rule for every redirect target and local-path option.
 */
export function isLocalPath(target: string): boolean {
  // RFC 3986 §4.2: "//host" is a network-path reference to another origin, and
  // WHATWG URL reads "\" as "/" in http(s) URLs. WHATWG URL §4.4 drops tab and
  // newline before parsing ("/\t/evil" is "//evil"), and a header value cannot
  // carry non-ASCII, so only visible ASCII passes.
  return target.length <= 2048 && /^\/(?!\/)[\x21-\x5b\x5d-\x7e]*$/.test(target);
}
