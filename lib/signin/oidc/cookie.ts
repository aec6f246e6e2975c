/*
 * The pending blob's cookie. Its name is `framework_oidc` (docs/design.md §4: the
 * framework's own name is the word "framework" on the wire), prefixed
 * `__Host-` on https origins so no sibling subdomain can set or shadow it
 * (RFC 6265bis §4.1.3.2: __Host- requires Secure, Path=/ and no Domain).
 * SameSite=Lax lets it ride on the provider's top-level redirect back to
 * us; HttpOnly keeps it from scripts.
 */
import { LatchCookie } from "../../internal/index.ts";

/** The pending cookie's name before any prefix. */
export const OIDC_PENDING_COOKIE: string = "framework_oidc";

/** Returns the pending cookie's name for an app served from `origin`. */
export function pendingCookieName(origin: URL): string {
  return new LatchCookie(OIDC_PENDING_COOKIE, origin.origin).name;
}

/** Returns the `Set-Cookie` value carrying a sealed blob for `maxAge` ms (rounded down to seconds). */
export function setPendingCookie(origin: URL, sealed: string, maxAge: number): string {
  return new LatchCookie(OIDC_PENDING_COOKIE, origin.origin).set(sealed, Math.floor(maxAge / 1000));
}

/** Returns the `Set-Cookie` value deleting the pending cookie. */
export function clearPendingCookie(origin: URL): string {
  return new LatchCookie(OIDC_PENDING_COOKIE, origin.origin).clear();
}
