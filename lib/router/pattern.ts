/*
 * Parsing of ServeMux patterns: `[METHOD ][HOST]/[PATH]`.
 *
 * A path is a list of segments. A literal segment is stored unescaped. A
 * `{name}` wildcard matches one whole non-empty segment; `{name...}` matches
 * the rest of the path (it must be last); a trailing `/` is an anonymous
 * `{...}`, so `/static/` matches the subtree; `{$}` matches only the end of
 * a path that ends in a slash. Pure code: no node:http, no request state.
 */
import { isCleanPath } from "./clean-path.ts";
import { RouterError } from "./errors.ts";

/** A literal segment, matched after unescaping. */
export const SEG_LITERAL = 0;
/** A `{name}` wildcard: one whole non-empty segment. */
export const SEG_WILD = 1;
/** A `{name...}` wildcard or a trailing slash: the rest of the path, possibly empty. */
export const SEG_MULTI = 2;
/** `{$}`: the end of a path ending in a slash. */
export const SEG_END = 3;

/** The kind of a path segment: one of the `SEG_*` constants. */
export type SegmentKind = typeof SEG_LITERAL | typeof SEG_WILD | typeof SEG_MULTI | typeof SEG_END;

/** One segment of a parsed pattern path. */
export interface Segment {
  /** What the segment matches. */
  readonly kind: SegmentKind;
  /** The unescaped literal, or the wildcard name ("" for a trailing slash and `{$}`). */
  readonly value: string;
}

/** A parsed pattern. */
export interface ParsedPattern {
  /** The pattern as registered. */
  readonly str: string;
  /** Upper-case method token, or "" for every method. */
  readonly method: string;
  /** Lower-cased host, or "" for every host. */
  readonly host: string;
  /** Path segments, never empty. */
  readonly segments: readonly Segment[];
  /** Names of the wildcards that capture a value, in path order. */
  readonly names: readonly string[];
}

// RFC 9110 §5.6.2: tchar.
const TCHAR = "!#$%&'*+-.^_`|~";

function isTokenChar(c: string): boolean {
  return (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || (c >= "0" && c <= "9") || TCHAR.includes(c);
}

function isToken(s: string): boolean {
  if (s === "") return false;
  for (const c of s) if (!isTokenChar(c)) return false;
  return true;
}

const IDENT = /^[\p{L}_][\p{L}\p{Nd}_]*$/u;

function invalid(pattern: string, reason: string): RouterError {
  return new RouterError("ERR_ROUTER_INVALID_PATTERN", `parsePattern: ${JSON.stringify(pattern)}: ${reason}`);
}

/**
 * Parses a ServeMux pattern. Throws `ERR_ROUTER_INVALID_PATTERN` with the
 * reason when the pattern is malformed or its path is not clean (paths are
 * cleaned before matching, so an unclean pattern could never match).
 */
export function parsePattern(str: string): ParsedPattern {
  if (str === "") throw invalid(str, "empty pattern");
  let method = "";
  let rest = str;
  const sp = str.search(/[ \t]/);
  if (sp >= 0) {
    method = str.slice(0, sp);
    rest = str.slice(sp + 1).replace(/^[ \t]+/, "");
    if (!isToken(method)) throw invalid(str, "invalid method");
    // Methods are case-sensitive (RFC 9110 §9.1): "get" would never match a GET.
    if (method !== method.toUpperCase()) {
      throw invalid(str, `methods are upper case: write ${JSON.stringify(`${method.toUpperCase()} ${rest}`)}`);
    }
  }
  const slash = rest.indexOf("/");
  if (slash < 0) throw invalid(str, "host/path missing /");
  // RFC 3986 §3.2.2: the host is case-insensitive; the request's host is lower-cased too (mux.ts hostOf).
  const host = rest.slice(0, slash).toLowerCase();
  if (host.includes("{")) throw invalid(str, "host contains '{' (missing initial '/'?)");
  if (/[\s]/.test(host)) throw invalid(str, "host contains whitespace");
  let path = rest.slice(slash);
  if (/[\s]/.test(path)) throw invalid(str, "path contains whitespace");
  if (!isCleanPath(path)) throw invalid(str, "unclean path can never match");
  const segments: Segment[] = [];
  const names: string[] = [];
  while (path.length > 0) {
    path = path.slice(1);
    if (path === "") {
      segments.push({ kind: SEG_MULTI, value: "" });
      break;
    }
    let end = path.indexOf("/");
    if (end < 0) end = path.length;
    const seg = path.slice(0, end);
    path = path.slice(end);
    const brace = seg.indexOf("{");
    // An Express-style ":id" would silently be a literal; say what the wildcard looks like.
    if (/^:[\p{L}_][\p{L}\p{Nd}_]*$/u.test(seg)) {
      throw invalid(str, `wildcards are written {name}: write ${JSON.stringify(str.replace(/\/:([\p{L}\p{Nd}_]+)/gu, "/{$1}"))}`);
    }
    if (brace < 0) {
      segments.push({ kind: SEG_LITERAL, value: unescapeLiteral(seg) });
      continue;
    }
    if (brace !== 0) throw invalid(str, "bad wildcard segment (must start with '{')");
    if (!seg.endsWith("}")) throw invalid(str, "bad wildcard segment (must end with '}')");
    let name = seg.slice(1, -1);
    if (name === "$") {
      if (path !== "") throw invalid(str, "{$} not at end");
      segments.push({ kind: SEG_END, value: "" });
      break;
    }
    const multi = name.endsWith("...");
    if (multi) name = name.slice(0, -3);
    if (multi && path !== "") throw invalid(str, "{...} wildcard not at end");
    if (name === "") throw invalid(str, "empty wildcard name");
    if (!IDENT.test(name)) throw invalid(str, `bad wildcard name ${JSON.stringify(name)}`);
    if (names.includes(name)) throw invalid(str, `duplicate wildcard name ${JSON.stringify(name)}`);
    names.push(name);
    segments.push({ kind: multi ? SEG_MULTI : SEG_WILD, value: name });
  }
  return { str, method, host, segments, names };
}

function unescapeLiteral(seg: string): string {
  if (!seg.includes("%")) return seg;
  // As Go's ServeMux (pathUnescape): a literal that is not a valid escape is kept as written.
  try {
    return decodeURIComponent(seg);
  } catch {
    return seg;
  }
}

/** Reports whether the pattern's last segment is a multi wildcard (`{x...}` or a trailing slash). */
export function endsInMulti(p: ParsedPattern): boolean {
  return p.segments[p.segments.length - 1]?.kind === SEG_MULTI;
}
