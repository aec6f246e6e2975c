/*
 * Where a sign-in or step-up returns to: a page that sends the person away
 * to authenticate remembers itself in a short-lived cookie, so it survives
 * every way back (link, code, passkey, step-up), none of which carries the
 * query along. Callers remember and follow only a local path.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { LatchCookie, appendSetCookie } from "./cookie.ts";

/** Base name of the cookie (`__Host-` prefixed on https origins). */
export const NEXT_COOKIE: string = "framework_next";

/** How long a browser remembers where to return: 15 minutes, a sign-in link's default life. */
export const NEXT_TTL_SECONDS: number = 15 * 60;

/** Remembers `path` (a local path, checked by the caller) as where this browser's sign-in returns. */
export function rememberNext(res: ServerResponse, origin: string, path: string): void {
  // base64url: a path may hold characters a cookie value may not (RFC 6265 §4.1.1 cookie-octet).
  appendSetCookie(res, new LatchCookie(NEXT_COOKIE, origin).set(Buffer.from(path).toString("base64url"), NEXT_TTL_SECONDS));
}

/** Returns the remembered path (unchecked: the caller checks it is local) and forgets it; undefined when none. */
export function takeNext(req: IncomingMessage, res: ServerResponse, origin: string): string | undefined {
  const cookie = new LatchCookie(NEXT_COOKIE, origin);
  const value = cookie.read(req.headers.cookie);
  if (value === undefined || value === "") return undefined;
  appendSetCookie(res, cookie.clear());
  return Buffer.from(value, "base64url").toString();
}

/**
 * Remembers `back` (a local path, checked by the caller) and returns where
 * to send this browser to authenticate: `path?next=back`. The one way
 * `RequireFreshSession` and the OAuth authorization endpoint send a person
 * away and back.
 */
export function awayAndBack(res: ServerResponse, origin: string, path: string, back: string): string {
  rememberNext(res, origin, back);
  return `${path}?next=${encodeURIComponent(back)}`;
}

/**
 * Reports whether a session authenticated at `authTime` is too old at `now`
 * for what needs it within `maxAge` ms. SPEC §4.2: fresh means
 * authenticated within the window; only a sign-in or a passkey assertion
 * renews `AuthTime`. The one freshness test (sign-in, passkey, oauth).
 */
export function isStale(authTime: Date, now: Date, maxAge: number): boolean {
  // Not "age > maxAge": that is false for a NaN maxAge and would pass a session of any age (fail closed, ASVS 5.0 §7.5.1).
  return !(now.getTime() - authTime.getTime() <= maxAge);
}
