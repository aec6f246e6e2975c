/*
 * Accept-Language negotiation, pure: weighted ranges (RFC 9110 §12.5.4), heaviest first, each tried with
 * RFC 4647 §3.4 lookup, then same language and script (`pt` gets `pt-BR`, `zh-TW` never `zh-CN`); `*` is
 * skipped, malformed entries dropped, it never throws (README "Resolving a request's locale").
 */
import { findDeclared, languageScript } from "./locale-code.ts";

/** At most this many ranges of one header are considered. */
const MAX_RANGES = 32;
/** A longer header is cut here before parsing. */
const MAX_HEADER = 4096;

// RFC 4647 §2.1: language-range = (1*8ALPHA *("-" 1*8alphanum)) / "*"
const RANGE_PATTERN = /^(?:\*|[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*)$/;
// RFC 9110 §12.4.2: qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )
const Q_PATTERN = /^(?:0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?)$/;

/** One weighted range of an Accept-Language header. */
export interface LanguageRange {
  /** The range, e.g. `"pt-BR"` or `"*"`. */
  range: string;
  /** Its weight, 0 to 1. */
  q: number;
}

/**
 * Parses an Accept-Language header into ranges with a positive weight,
 * heaviest first. Malformed entries are dropped.
 */
export function parseAcceptLanguage(header: string): LanguageRange[] {
  const out: LanguageRange[] = [];
  for (const part of header.slice(0, MAX_HEADER).split(",")) {
    if (out.length >= MAX_RANGES) break;
    const [rawRange = "", ...params] = part.split(";");
    const range = rawRange.trim();
    if (!RANGE_PATTERN.test(range)) continue;
    let q = 1;
    let ok = true;
    for (const param of params) {
      const [name = "", value = ""] = param.split("=").map((s) => s.trim());
      if (name.toLowerCase() !== "q") continue;
      if (!Q_PATTERN.test(value)) ok = false;
      else q = Number(value);
    }
    if (ok && q > 0) out.push({ range, q });
  }
  return out.sort((a, b) => b.q - a.q);
}

/**
 * Returns the declared code that best serves one language range, or
 * `undefined`: RFC 4647 §3.4 lookup by truncation, then same language and
 * script.
 */
export function matchLocale(range: string, codes: readonly string[]): string | undefined {
  const subtags = range.split("-");
  while (subtags.length > 0) {
    const hit = findDeclared(codes, subtags.join("-"));
    if (hit !== undefined) return hit;
    subtags.pop();
    // RFC 4647 §3.4: a single-letter subtag left at the end is removed along with the one it precedes.
    if (subtags.length > 0 && (subtags[subtags.length - 1] ?? "").length === 1) subtags.pop();
  }
  const want = languageScript(range);
  if (want === undefined) return undefined;
  return codes.find((c) => languageScript(c) === want);
}

/** Picks the locale of an Accept-Language header among `codes` (`"pt;q=0.9, en;q=0.5"` gets `pt-BR`), else `defaultCode`. */
export function negotiate(acceptLanguage: string | undefined, codes: readonly string[], defaultCode: string): string {
  if (acceptLanguage === undefined) return defaultCode;
  for (const { range } of parseAcceptLanguage(acceptLanguage)) {
    // RFC 4647 §3.4: in lookup "*" is skipped when other ranges follow, and yields the default when none do.
    if (range === "*") continue;
    const hit = matchLocale(range, codes);
    if (hit !== undefined) return hit;
  }
  return defaultCode;
}
