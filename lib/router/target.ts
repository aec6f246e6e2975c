/*
 * The request-target, read by hand (no `new URL`, no regular expression):
 * origin-form `/path?query` is the fast path; absolute-form
 * `http://host/path?query` (RFC 9112 §3.2.2) is reduced to its path; `*`
 * and anything else is refused by the caller with a 400. Also builds a
 * safe `Location` for the router's redirects.
 */

import { Buffer } from "node:buffer";

const SLASH = 47;

/**
 * Returns the index where the path starts in an absolute-form target
 * (RFC 9112 §3.2.2), `target.length` when the path is empty, or -1 when
 * `target` is not absolute-form.
 */
export function absolutePathStart(target: string): number {
  const colon = target.indexOf("://");
  if (colon <= 0) return -1;
  // RFC 3986 §3.1: scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )
  for (let k = 0; k < colon; k++) {
    const c = target.charCodeAt(k) | 0x20;
    const alpha = c >= 97 && c <= 122;
    const other = k > 0 && ((c >= 48 && c <= 57) || c === 0x2b || c === 0x2d || c === 0x2e);
    if (!alpha && !other) return -1;
  }
  for (let k = colon + 3; k < target.length; k++) {
    const c = target.charCodeAt(k);
    if (c === SLASH || c === 63) return k;
  }
  return target.length;
}

/**
 * Reports whether every `%` in `path` starts a valid escape and the
 * escapes decode to valid UTF-8 (RFC 3986 §2.1; RFC 3629 §3).
 */
export function isValidEscaping(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

const HEX = "0123456789ABCDEF";

function hexByte(b: number): string {
  return "%" + (HEX[b >> 4] ?? "0") + (HEX[b & 15] ?? "0");
}

function isLocationSafe(c: number): boolean {
  // RFC 3986 §2.2, §2.3: unreserved, sub-delims, ":", "@", "/", "?", and "%" of existing escapes.
  if ((c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39)) return true;
  return "-._~!$&'()*+,;=:@/?%".includes(String.fromCharCode(c));
}

/**
 * Percent-encodes every character of a redirect target that is not safe in
 * a URI. A backslash, in particular, is encoded: browsers read `/\host` as
 * `//host`, which would turn a path redirect into an open redirect.
 */
export function encodeLocation(target: string): string {
  let out = "";
  for (let k = 0; k < target.length; k++) {
    const c = target.charCodeAt(k);
    if (isLocationSafe(c)) {
      out += target[k];
    } else if (c < 0x100) {
      // node:http hands us the raw target bytes as latin1 characters.
      out += hexByte(c);
    } else {
      for (const b of Buffer.from(String.fromCharCode(c), "utf8")) out += hexByte(b);
    }
  }
  return out;
}
