// What a request says of itself, never throwing: `new URL(req.url, base)` throws for `GET http://a:99999/x`, which would turn bad input into a 500.
import type { IncomingMessage } from "node:http";

/**
 * Returns the request's path and query (`/a/b?c`) in origin form, also for an
 * absolute-form target (RFC 9112 §3.2.2: its authority is dropped, never
 * trusted). Never throws; "/" when there is no path.
 */
export function requestTarget(req: IncomingMessage): string {
  const url = req.url ?? "/";
  if (url.startsWith("/")) return `/${url.replace(/^\/+/, "")}`;
  const scheme = url.indexOf("://");
  if (scheme < 0) return "/";
  const path = url.slice(scheme + 3).search(/[/?]/);
  if (path < 0) return "/";
  const rest = url.slice(scheme + 3 + path);
  return rest.startsWith("?") ? `/${rest}` : `/${rest.replace(/^\/+/, "")}`;
}

/** Returns the request's media type: the `Content-Type` before any parameter, lowercased ("" when absent). */
export function mediaType(req: IncomingMessage): string {
  return (req.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

/**
 * Returns the serialized origin (`scheme://host[:port]`) of an http or https
 * URL, or `undefined` for anything else. The one check of every `Origin`
 * option: RFC 6454 §4 gives only such URLs a tuple origin; any other
 * serializes as "null", the value sandboxed frames send, never to be trusted.
 */
export function parseOrigin(value: unknown): string | undefined {
  const url = typeof value === "string" ? URL.parse(value) : null;
  if (url === null || (url.protocol !== "http:" && url.protocol !== "https:")) return undefined;
  return url.origin;
}

/**
 * What a request's browser headers say of where it comes from: "unknown"
 * when it carries neither `Sec-Fetch-Site` nor `Origin` (not a modern
 * browser); without `origin` (the application's) only Fetch Metadata is read.
 */
export function crossOriginVerdict(req: IncomingMessage, origin: string | undefined): "same-origin" | "cross-origin" | "unknown" {
  const site = req.headers["sec-fetch-site"];
  if (site !== undefined) {
    // W3C Fetch Metadata §2.4: only same-origin and user-initiated (none) requests may change state.
    return site === "same-origin" || site === "none" ? "same-origin" : "cross-origin";
  }
  return origin === undefined ? "unknown" : originVerdict(req, origin);
}

/** What `Origin` alone says ("null" is cross-origin): for an endpoint that must not take Fetch Metadata's word (MCP: under DNS rebinding a foreign page is same-origin to the browser). */
export function originVerdict(req: IncomingMessage, origin: string): "same-origin" | "cross-origin" | "unknown" {
  const from = req.headers.origin;
  if (from === undefined) return "unknown";
  // RFC 6454 §7: compare the serialized origin exactly (scheme, host, port).
  return from === origin ? "same-origin" : "cross-origin";
}

/** The client's address: `clientIP(req)` when the application gave one (behind a proxy), else the socket's peer; undefined on a unix socket. */

export function clientAddress(req: IncomingMessage, clientIP: ((req: IncomingMessage) => string) | undefined): string | undefined {
  return clientIP?.(req) ?? req.socket.remoteAddress;
}
