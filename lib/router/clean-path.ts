/*
 * Canonical request paths, as Go's ServeMux computes them: a rooted path
 * with `.` and `..` segments resolved and repeated slashes collapsed, a
 * trailing slash kept. `isCleanPath` is a single scan with no allocation
 * (the per-request fast path); `cleanPath` runs only for the rare unclean
 * request, which is then redirected. The result equals node:path's
 * `posix.normalize` for every rooted input (tested as an oracle).
 */

const SLASH = 47;
const DOT = 46;

/** Reports whether `p` is rooted and has no empty, `.` or `..` segment (a trailing slash is allowed). */
export function isCleanPath(p: string): boolean {
  if (p.charCodeAt(0) !== SLASH) return false;
  const n = p.length;
  for (let i = 0; i < n; i++) {
    if (p.charCodeAt(i) !== SLASH) continue;
    // i starts a segment: look at what follows the slash.
    const a = i + 1 < n ? p.charCodeAt(i + 1) : -1;
    if (a === SLASH) return false;
    if (a !== DOT) continue;
    const b = i + 2 < n ? p.charCodeAt(i + 2) : -1;
    if (b === -1 || b === SLASH) return false;
    if (b !== DOT) continue;
    const c = i + 3 < n ? p.charCodeAt(i + 3) : -1;
    if (c === -1 || c === SLASH) return false;
  }
  return true;
}

/**
 * Returns the canonical form of a request path: rooted, `.` and `..`
 * resolved (never above the root), runs of slashes collapsed, and a
 * trailing slash kept when the input had one.
 */
export function cleanPath(p: string): string {
  if (p === "") return "/";
  const out: string[] = [];
  for (const seg of p.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") {
      out.pop();
      continue;
    }
    out.push(seg);
  }
  if (out.length === 0) return "/";
  return "/" + out.join("/") + (p.endsWith("/") ? "/" : "");
}
