/*
 * Money as integer minor units of its currency, never a float in storage or arithmetic (README "Money"). Parsing reads
 * the request locale's separators from Intl.NumberFormat parts; more decimals than the currency has is refused, never
 * rounded, and group separators must sit between groups of three digits ("12.34" in German is refused, not 1234).
 */
import { remembered } from "../internal/index.ts";
import { FORMATTERS_KEPT, numberFormat } from "./intl.ts";

/** The largest absolute amount stored, in minor units (below 2^53, so exact). */
export const MONEY_MAX_MINOR: number = 999_999_999_999_999;

/** The outcome of `parseMoney`. */
export type ParsedMoney = { ok: true; minor: number } | { ok: false; reason: "invalid" | "precision" | "range" };

// Asked once per currency and per locale (issue 44): `resolvedOptions` and `formatToParts` build objects on every call,
// and a list page asked them for every amount it showed (BENCHMARKS.md "(o)").
const digitsOf = new Map<string, number>();
const separatorsOf = new Map<string, { decimal: string; group: string }>();

// The formatters' options, one frozen object per currency: intl.ts keeps a formatter by its options object.
const LATIN: Intl.NumberFormatOptions = Object.freeze({ numberingSystem: "latn" });
const currencyOptions = new Map<string, Intl.NumberFormatOptions>();
const inputOptions = new Map<string, Intl.NumberFormatOptions>();

/** Returns how many decimals `currency` has (its ISO 4217 minor unit, as Intl knows it). */
export function currencyDigits(currency: string): number {
  return remembered(
    digitsOf,
    currency,
    () => numberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2,
    FORMATTERS_KEPT,
  );
}

/** Returns the decimal and group separators `locale` writes numbers with (Latin digits). */
export function numberSeparators(locale: string): { decimal: string; group: string } {
  return remembered(
    separatorsOf,
    locale,
    () => {
      const parts = numberFormat(locale, LATIN).formatToParts(12345.6);
      return Object.freeze({
        decimal: parts.find((p) => p.type === "decimal")?.value ?? ".",
        group: parts.find((p) => p.type === "group")?.value ?? ",",
      });
    },
    FORMATTERS_KEPT,
  );
}

/** Returns `text` with Arabic-Indic and extended Arabic-Indic digits, as an Arabic keyboard types them, and their separators in Latin. */
export function latinDigits(text: string): string {
  return text
    .replace(/[\u0660-\u0669]/g, (d) => String(d.charCodeAt(0) - 0x0660))
    .replace(/[\u06f0-\u06f9]/g, (d) => String(d.charCodeAt(0) - 0x06f0))
    .replace(/\u066b/g, ".")
    .replace(/\u066c/g, ",");
}

const SPACES = /[\s\u00a0\u202f]/;

/**
 * Returns the digits of a whole number written with `group` between groups of three ("1.234.567" with "." → "1234567"),
 * without leading zeros, or undefined when it is not so written. A space group separator matches any space, as people
 * type a plain one where the locale writes U+202F.
 */
export function groupedDigits(whole: string, group: string): string | undefined {
  const [first = "", ...rest] = SPACES.test(group) ? whole.split(SPACES) : whole.split(group);
  if (!/^[0-9]+$/.test(first) || rest.some((g) => !/^[0-9]{3}$/.test(g))) return undefined;
  return (first + rest.join("")).replace(/^0+(?=[0-9])/, "");
}

/** `text` in Latin digits without its leading minus sign ("-" or U+2212), if any, and whether it had one. */
export function signed(text: string): { negative: boolean; rest: string } {
  const s = latinDigits(text).trim();
  const negative = s.startsWith("-") || s.startsWith("\u2212");
  return { negative, rest: negative ? s.slice(1).trim() : s };
}

/**
 * Parses an amount typed in `locale` into minor units of `currency`. Accepts an optional leading "-", digits, the
 * locale's group separator between groups of three, and the locale's decimal separator followed by at most the
 * currency's decimals.
 *
 * @example
 * parseMoney("1.234,56", "de", "EUR"); // { ok: true, minor: 123456 }
 * parseMoney("12.345", "en", "USD");   // { ok: false, reason: "precision" }
 */
export function parseMoney(text: string, locale: string, currency: string): ParsedMoney {
  const { decimal, group } = numberSeparators(locale);
  const { negative, rest: s } = signed(text);
  if (s === "") return { ok: false, reason: "invalid" };
  const at = s.lastIndexOf(decimal);
  const whole = at < 0 ? s : s.slice(0, at);
  const fraction = at < 0 ? "" : s.slice(at + decimal.length);
  if (!/^[0-9]*$/.test(fraction) || (at >= 0 && fraction === "")) return { ok: false, reason: "invalid" };
  const units = groupedDigits(whole, group);
  if (units === undefined) return { ok: false, reason: "invalid" };
  const digits = currencyDigits(currency);
  if (fraction.length > digits) return { ok: false, reason: "precision" };
  if (units.length > 16) return { ok: false, reason: "range" };
  const minor = Number(units + fraction.padEnd(digits, "0"));
  if (!Number.isSafeInteger(minor) || minor > MONEY_MAX_MINOR) return { ok: false, reason: "range" };
  return { ok: true, minor: negative && minor !== 0 ? -minor : minor };
}

/** Returns `minor` units as a plain decimal string with the currency's decimals: 123456 USD → "1234.56". */
export function formatMinor(minor: number, currency: string): string {
  const digits = currencyDigits(currency);
  const sign = minor < 0 ? "-" : "";
  const text = String(Math.abs(minor)).padStart(digits + 1, "0");
  return digits === 0 ? sign + text : `${sign}${text.slice(0, -digits)}.${text.slice(-digits)}`;
}

/** Formats `minor` units for display in `locale`, with the currency: 123456 USD, "de" → "1.234,56 $". */
export function formatMoney(minor: number, locale: string, currency: string): string {
  const options = remembered(
    currencyOptions,
    currency,
    (): Intl.NumberFormatOptions => Object.freeze({ style: "currency", currency, numberingSystem: "latn" }),
    FORMATTERS_KEPT,
  );
  return numberFormat(locale, options).format(decimalString(minor, currency));
}

/** Formats `minor` units as `locale` writes them in an input, without the currency: 123456, "de" → "1.234,56". */
export function formatMoneyInput(minor: number, locale: string, currency: string): string {
  const digits = currencyDigits(currency);
  const options = remembered(
    inputOptions,
    currency,
    (): Intl.NumberFormatOptions =>
      Object.freeze({ numberingSystem: "latn", minimumFractionDigits: digits, maximumFractionDigits: digits }),
    FORMATTERS_KEPT,
  );
  return numberFormat(locale, options).format(decimalString(minor, currency));
}

// Intl formats a decimal string exactly (ECMA-402 "Intl.NumberFormat v3"), so no float ever carries the amount.
function decimalString(minor: number, currency: string): Intl.StringNumericLiteral {
  return formatMinor(minor, currency) as Intl.StringNumericLiteral;
}
