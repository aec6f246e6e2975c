/*
 * Writing direction of a locale: Intl's (`getTextInfo()` on Node 26, `textInfo` on Node 22), else the
 * likely script's, else a table of right-to-left languages. A right-to-left script always wins: older
 * ICU data answers "ltr" for some (`dv` in Thaana, `az-Arab`).
 */
import { remembered } from "../internal/index.ts";

// Unicode scripts written right to left (Unicode Standard §2.10, CLDR script metadata "rtl").
const RTL_SCRIPTS: ReadonlySet<string> = new Set(["Adlm", "Arab", "Hebr", "Mand", "Nkoo", "Rohg", "Samr", "Syrc", "Thaa", "Yezi"]);
// Languages whose usual script is one of the above, for when `maximize()` is missing.
const RTL_LANGUAGES: ReadonlySet<string> = new Set(["ar", "arc", "ckb", "dv", "fa", "he", "iw", "ks", "ps", "sd", "syr", "ug", "ur", "yi"]);

/** Writing direction of a locale. */
export type Direction = "rtl" | "ltr";

/**
 * Returns `"rtl"` for a right-to-left locale such as `ar`, else `"ltr"`.
 * A malformed code is `"ltr"`; it never throws.
 *
 * @example
 * html`<html lang="${code}" dir="${Dir(code)}">`;
 */
export function Dir(locale: string): Direction {
  // Bounded, as a caller may pass any text: past DIRECTIONS_KEPT codes the table starts again.
  return remembered(directions, locale, () => directionOf(locale), DIRECTIONS_KEPT);
}

/** Codes whose direction `Dir` keeps (an application's locales and their variants): 256. */
const DIRECTIONS_KEPT = 256;

// Each page asks for its locale's direction; Intl.Locale and its text info cost about as much as the rest of the
// page's layout (issue 44, BENCHMARKS.md "(o)"), so the answer is kept per code.
const directions = new Map<string, Direction>();

function directionOf(locale: string): Direction {
  let loc: Intl.Locale;
  try {
    loc = new Intl.Locale(locale);
  } catch {
    return "ltr";
  }
  return intlDirection(loc) === "rtl" ? "rtl" : tableDirection(loc);
}

/** Returns the direction Intl reports for `loc`, or `undefined` when this Node has no text info. */
function intlDirection(loc: Intl.Locale): Direction | undefined {
  const obj: object = loc;
  let info: unknown;
  if ("getTextInfo" in obj && typeof obj.getTextInfo === "function") info = obj.getTextInfo.call(loc);
  else if ("textInfo" in obj) info = obj.textInfo;
  if (typeof info !== "object" || info === null || !("direction" in info)) return undefined;
  return info.direction === "rtl" ? "rtl" : info.direction === "ltr" ? "ltr" : undefined;
}

/** Returns the direction from the locale's (likely) script, then from the language table. */
export function tableDirection(loc: Intl.Locale): Direction {
  let script = loc.script;
  if (script === undefined && typeof loc.maximize === "function") script = loc.maximize().script;
  if (script !== undefined) return RTL_SCRIPTS.has(script) ? "rtl" : "ltr";
  return RTL_LANGUAGES.has(loc.language) ? "rtl" : "ltr";
}
