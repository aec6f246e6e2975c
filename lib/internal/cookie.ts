/*
 * Cookies (RFC 6265, rfc6265bis) and `LatchCookie`, the one definition of a
 * latch cookie's attributes. The first occurrence of a name wins (RFC 6265
 * §5.4 orders longer paths first); serialization refuses characters that
 * would split or inject attributes.
 */
import type { ServerResponse } from "node:http";

/** Attributes of a cookie being set. */
export interface CookieAttributes {
  maxAge?: number;
  path?: string;
  httpOnly?: boolean;
  secure?: boolean;
  sameSite?: "Strict" | "Lax" | "None";
}

/** Parses a Cookie request header into a Map of name to value. */
export function parseCookies(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (header === undefined) return out;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    if (name === "" || out.has(name)) continue;
    let value = part.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    out.set(name, value);
  }
  return out;
}

/** The value of the first cookie called `name`: `parseCookies(header).get(name)` without building the map (it runs on every session's request). */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  let start = 0;
  while (start < header.length) {
    let end = header.indexOf(";", start);
    if (end < 0) end = header.length;
    const eq = header.indexOf("=", start);
    if (eq >= 0 && eq < end && header.slice(start, eq).trim() === name) {
      let value = header.slice(eq + 1, end).trim();
      if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
      return value;
    }
    start = end + 1;
  }
  return undefined;
}

// RFC 6265 §4.1.1: cookie-name is a token; cookie-octets exclude CTLs,
// whitespace, DQUOTE, comma, semicolon and backslash.
const NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const VALUE = /^[\x21\x23-\x2B\x2D-\x3A\x3C-\x5B\x5D-\x7E]*$/;
const PATH = /^[\x20-\x3A\x3C-\x7E]*$/;

/**
 * Serializes a Set-Cookie value. Throws `TypeError` for a name, value or
 * path that RFC 6265 forbids, and for a `__Host-` cookie that is not
 * `Secure` with `Path=/` (rfc6265bis §4.1.3.2).
 */
export function serializeCookie(name: string, value: string, attrs: CookieAttributes = {}): string {
  if (!NAME.test(name)) throw new TypeError("serialize cookie: invalid name");
  if (!VALUE.test(value)) throw new TypeError("serialize cookie: invalid value");
  // rfc6265bis §4.1.3.2: __Host- requires Secure, Path=/ and no Domain.
  if (name.startsWith("__Host-") && (attrs.secure !== true || attrs.path !== "/")) {
    throw new TypeError("serialize cookie: __Host- cookies need Secure and Path=/");
  }
  // rfc6265bis §4.1.3.1: __Secure- requires Secure.
  if (name.startsWith("__Secure-") && attrs.secure !== true) throw new TypeError("serialize cookie: __Secure- cookies need Secure");

  let out = `${name}=${value}`;
  if (attrs.maxAge !== undefined) out += `; Max-Age=${Math.max(0, Math.floor(attrs.maxAge))}`;
  if (attrs.path !== undefined) {
    if (!PATH.test(attrs.path)) throw new TypeError("serialize cookie: invalid path");
    out += `; Path=${attrs.path}`;
  }
  if (attrs.httpOnly === true) out += "; HttpOnly";
  if (attrs.secure === true) out += "; Secure";
  if (attrs.sameSite !== undefined) out += `; SameSite=${attrs.sameSite}`;
  return out;
}

/** Returns the cookie name, `__Host-` prefixed and secure when the origin is https. */
export function cookieName(base: string, origin: string): { name: string; secure: boolean } {
  const secure = origin.startsWith("https://");
  return { name: secure ? `__Host-${base}` : base, secure };
}

/** Adds a Set-Cookie header without dropping the ones already set. */
export function appendSetCookie(res: ServerResponse, cookie: string): void {
  const prev = res.getHeader("Set-Cookie");
  if (prev === undefined) res.setHeader("Set-Cookie", cookie);
  else if (Array.isArray(prev)) res.setHeader("Set-Cookie", [...prev, cookie]);
  else res.setHeader("Set-Cookie", [String(prev), cookie]);
}

/**
 * One of latch's own cookies on one origin: `__Host-<base>` and `Secure` on
 * https, else plain `<base>` (browsers refuse both on http); `HttpOnly`;
 * `SameSite=Lax`, so it rides along on navigations back from a mail client
 * or a provider; `Path=/`.
 */
export class LatchCookie {
  /** The name on the wire. */
  readonly name: string;
  readonly #secure: boolean;

  constructor(base: string, origin: string) {
    const { name, secure } = cookieName(base, origin);
    this.name = name;
    this.#secure = secure;
  }

  /** Returns this cookie's value in a Cookie request header, or undefined. */
  read(header: string | undefined): string | undefined {
    return readCookie(header, this.name);
  }

  /** Returns the Set-Cookie value holding `value` for `maxAge` seconds (rounded down). */
  set(value: string, maxAge: number): string {
    // ASVS 5.0 3.3.1-3.3.4: Secure with the __Host- prefix on https, HttpOnly, SameSite; rfc6265bis §4.1.3.2 is enforced by serializeCookie.
    return serializeCookie(this.name, value, { maxAge, path: "/", httpOnly: true, secure: this.#secure, sameSite: "Lax" });
  }

  /** Returns the Set-Cookie value that deletes this cookie (empty, `Max-Age=0`, same attributes). */
  clear(): string {
    return this.set("", 0);
  }
}
