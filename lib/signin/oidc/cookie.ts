/*
 * The pending blob's cookie. Its name is `framework_oidc` (DESIGN.md: the
 * framework's own name is the word "framework" on the wire), prefixed
 * `__Host-` on https origins so no sibling subdomain can set or shadow it
 * (RFC 6265bis §4.1.3.2: __Host- requires Secure, Path=/ and no Domain).
 * SameSite=Lax lets it ride on the provider's top-level redirect back to
 * us; HttpOnly keeps it from scripts.
 */

/** The pending cookie's name before any prefix. */
export const PENDING_COOKIE = "framework_oidc";

/** Returns the pending cookie's name for an app served from `origin`. */
export function pendingCookieName(origin: URL): string {
  return origin.protocol === "https:" ? `__Host-${PENDING_COOKIE}` : PENDING_COOKIE;
}

const COOKIE_VALUE = /^[A-Za-z0-9._-]*$/;

function serialize(origin: URL, value: string, maxAgeSeconds: number): string {
  // RFC 6265 §4.1.1: a cookie value is a restricted octet set; ours is base64url, never CR/LF or ';'.
  if (!COOKIE_VALUE.test(value)) throw new TypeError("set pending cookie: value is not base64url");
  const secure = origin.protocol === "https:" ? "; Secure" : "";
  return `${pendingCookieName(origin)}=${value}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${secure}`;
}

/** Returns the `Set-Cookie` value carrying a sealed blob for `maxAge` ms (rounded down to seconds). */
export function setPendingCookie(origin: URL, sealed: string, maxAge: number): string {
  return serialize(origin, sealed, Math.floor(maxAge / 1000));
}

/** Returns the `Set-Cookie` value deleting the pending cookie. */
export function clearPendingCookie(origin: URL): string {
  return serialize(origin, "", 0);
}

/**
 * Returns the value of cookie `name` from a `Cookie` request header, or
 * `undefined`. When the name repeats, the first wins (RFC 6265 §5.4 sends
 * the most specific path first).
 */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const pair of header.split(";")) {
    const eq = pair.indexOf("=");
    if (eq < 0) continue;
    if (pair.slice(0, eq).trim() === name) return pair.slice(eq + 1).trim();
  }
  return undefined;
}
