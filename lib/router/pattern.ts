/*
 * Parsing of ServeMux patterns, `[METHOD ][HOST]/[PATH]`: `{name}` matches
 * one non-empty segment, `{name...}` (last) or a trailing `/` the rest of
 * the path, `{$}` only the end of a path ending in a slash.
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

// RFC 9110 §5.6.2: a method is a token, one or more tchar.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

const IDENT = /^[\p{L}_][\p{L}\p{Nd}_]*$/u;

function invalid(pattern: string, reason: string): RouterError {
  return new RouterError("ERR_ROUTER_INVALID_PATTERN", `parsePattern: ${JSON.stringify(pattern)}: ${reason}`);
}

/** Parses a ServeMux pattern; throws `ERR_ROUTER_INVALID_PATTERN` with the reason, also for an unclean path (which could never match). */
export function parsePattern(str: string): ParsedPattern {
  if (str === "") throw invalid(str, "empty pattern");
  let method = "";
  let rest = str;
  const sp = str.search(/[ \t]/);
  if (sp >= 0) {
    method = str.slice(0, sp);
    rest = str.slice(sp + 1).replace(/^[ \t]+/, "");
    if (!TOKEN.test(method)) throw invalid(str, "invalid method");
    // Methods are case-sensitive (RFC 9110 §9.1): "get" would never match a GET.
    if (method !== method.toUpperCase())
      throw invalid(str, `methods are upper case: write ${JSON.stringify(`${method.toUpperCase()} ${rest}`)}`);
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
