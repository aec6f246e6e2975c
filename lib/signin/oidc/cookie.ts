/*
 * The pending blob's cookie. Its name is `framework_oidc` (DESIGN.md: the
 * framework's own name is the word "framework" on the wire), prefixed
 * `__Host-` on https origins so no sibling subdomain can set or shadow it
 * (RFC 6265bis §4.1.3.2: __Host- requires Secure, Path=/ and no Domain).
 * SameSite=Lax lets it ride on the provider's top-level redirect back to
 * us; HttpOnly keeps it from scripts.
 */
import { cookieName, serializeCookie } from "../../internal/index.ts";

/** The pending cookie's name before any prefix. */
export const OIDC_PENDING_COOKIE: string = "framework_oidc";

/** Returns the pending cookie's name for an app served from `origin`. */
export function pendingCookieName(origin: URL): string {
  return cookieName(OIDC_PENDING_COOKIE, origin.origin).name;
}

function serialize(origin: URL, value: string, maxAgeSeconds: number): string {
  const { name, secure } = cookieName(OIDC_PENDING_COOKIE, origin.origin);
  // RFC 6265 §4.1.1 and rfc6265bis §4.1.3.2 (__Host-) are enforced by serializeCookie.
  return serializeCookie(name, value, { maxAge: maxAgeSeconds, path: "/", httpOnly: true, secure, sameSite: "Lax" });
}

/** Returns the `Set-Cookie` value carrying a sealed blob for `maxAge` ms (rounded down to seconds). */
export function setPendingCookie(origin: URL, sealed: string, maxAge: number): string {
  return serialize(origin, sealed, Math.floor(maxAge / 1000));
}

/** Returns the `Set-Cookie` value deleting the pending cookie. */
export function clearPendingCookie(origin: URL): string {
  return serialize(origin, "", 0);
}
