/*
 * The values of the kinds beyond text and money (README "Field kinds"): dates, whole numbers, email addresses and web
 * addresses, each parsed from what a person (or a tool call) sent into the one form it is stored in, and formatted
 * back. A date is a calendar date, never an instant: stored as ISO "YYYY-MM-DD" and formatted at UTC midnight in UTC,
 * so no time zone can move it a day.
 */
import { groupedDigits, latinDigits, numberSeparators, signed } from "./money.ts";
import { numberFormat, dateTimeFormat } from "./intl.ts";

/** The largest absolute whole number an Integer field holds: 2^53 - 1, exact in JSON and JavaScript. */
export const INTEGER_LIMIT: number = Number.MAX_SAFE_INTEGER;

/** The longest email address: RFC 5321 §4.5.3.1.3 allows a path of 256 octets, 254 without its angle brackets. */
export const EMAIL_MAX_LENGTH: number = 254;

/** The longest web address accepted, after normalization (`URL.href`). */
export const URL_MAX_LENGTH: number = 2048;

const ISO_DATE = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/;

// The formatters' options, frozen constants: intl.ts keeps a formatter by its options object.
const NUMERIC_DATE: Intl.DateTimeFormatOptions = Object.freeze({
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
  numberingSystem: "latn",
  timeZone: "UTC",
});
const MEDIUM_DATE: Intl.DateTimeFormatOptions = Object.freeze({ dateStyle: "medium", timeZone: "UTC" });
const WHOLE_NUMBER: Intl.NumberFormatOptions = Object.freeze({ numberingSystem: "latn", maximumFractionDigits: 0 });

/**
 * Returns `text` when it is an ISO calendar date "YYYY-MM-DD" that exists
 * (year 0001 to 9999, 29 February only in a leap year), else undefined.
 *
 * @example
 * parseDate("2028-02-29"); // "2028-02-29"
 * parseDate("2026-02-29"); // undefined
 */
export function parseDate(text: string): string | undefined {
  const match = ISO_DATE.exec(text);
  if (match === null) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return undefined;
  return text;
}

// Marks Intl puts around a date's separators in right-to-left locales (Arabic: "31‏/12‏/2026").
const BIDI_MARKS = /[\u200e\u200f\u061c]/g;

/**
 * Returns the ISO date a person typed in `locale`, or undefined: ISO "YYYY-MM-DD" in every locale, or the locale's
 * short numeric notation as Intl (CLDR) writes it, with a year of four digits ("31.12.2026" de, "2026. 12. 31." ko). A
 * notation with the month first (English) is not read: a wrong date stored is worse than a refusal (README "Field
 * kinds"). For form input and the list's date filters only; tools take ISO.
 *
 * @example
 * parseLocalDate("31.12.2026", "de"); // "2026-12-31"
 * parseLocalDate("12/31/2026", "en"); // undefined
 */
export function parseLocalDate(text: string, locale: string): string | undefined {
  const typed = latinDigits(text).replace(BIDI_MARKS, "").trim();
  const iso = parseDate(typed);
  if (iso !== undefined) return iso;
  const parts = dateTimeFormat(locale, NUMERIC_DATE)
    .formatToParts(0)
    .map((p) => ({ type: p.type, value: p.value.replace(BIDI_MARKS, "").trim() }));
  const order = parts.filter((p) => p.type === "year" || p.type === "month" || p.type === "day").map((p) => p.type);
  if (order.length !== 3 || order[0] === "month") return undefined;
  // Each number as digits, each separator as written, spaces around it optional, a trailing one too ("2026. 12. 31.").
  const last = parts.findLastIndex((p) => p.type !== "literal");
  const pattern = parts
    .map((p, i) => {
      if (p.type === "year") return "([0-9]{4})";
      if (p.type !== "literal") return "([0-9]{1,2})";
      if (p.value === "") return "\\s+";
      const separator = `\\s*${p.value.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}\\s*`;
      return i > last ? `(?:${separator})?` : separator;
    })
    .join("");
  const match = new RegExp(`^${pattern}$`).exec(typed);
  if (match === null) return undefined;
  const value = (type: string): string => match[order.indexOf(type as (typeof order)[number]) + 1] ?? "";
  return parseDate(`${value("year")}-${value("month").padStart(2, "0")}-${value("day").padStart(2, "0")}`);
}

function daysIn(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Formats an ISO date for display in `locale`: "2026-12-31", "de" → "31.12.2026". */
export function formatDate(iso: string, locale: string): string {
  return dateTimeFormat(locale, MEDIUM_DATE).format(new Date(`${iso}T00:00:00Z`));
}

/** The outcome of `parseInteger`. */
export type ParsedInteger = { ok: true; value: number } | { ok: false; reason: "invalid" | "range" };

/**
 * Parses a whole number typed in `locale`: an optional leading "-", digits,
 * and the locale's group separator between groups of three.
 *
 * @example
 * parseInteger("1.234", "de"); // { ok: true, value: 1234 }
 * parseInteger("1.5", "en");   // { ok: false, reason: "invalid" }
 */
export function parseInteger(text: string, locale: string): ParsedInteger {
  const { negative, rest: s } = signed(text);
  const digits = groupedDigits(s, numberSeparators(locale).group);
  if (digits === undefined) return { ok: false, reason: "invalid" };
  const value = digits.length > 16 ? Infinity : Number(digits);
  if (value > INTEGER_LIMIT) return { ok: false, reason: "range" };
  return { ok: true, value: negative && value !== 0 ? -value : value };
}

/** Formats a whole number for display in `locale` (Latin digits, as amounts): 1234, "de" → "1.234". */
export function formatInteger(value: number, locale: string): string {
  return numberFormat(locale, WHOLE_NUMBER).format(value);
}

// HTML §4.10.5.1.5 "valid e-mail address": exactly what <input type="email"> lets through.
const EMAIL =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

/** Reports whether `text` is an email address as HTML's `<input type="email">` accepts one, at most EMAIL_MAX_LENGTH long. */
export function isEmail(text: string): boolean {
  return text.length <= EMAIL_MAX_LENGTH && EMAIL.test(text);
}

/**
 * Returns `text` as a normalized http or https address (`URL.href`), or undefined: another scheme (javascript:, data:,
 * file:), no scheme, no host, or a user name or password in it (a secret shown in every list, and a way to dress one
 * host as another).
 *
 * @example
 * parseWebAddress("HTTPS://Example.com"); // "https://example.com/"
 * parseWebAddress("javascript:alert(1)"); // undefined
 */
export function parseWebAddress(text: string): string | undefined {
  // OWASP ASVS 5.0 §1.2.2: only safe URL protocols (http, https) reach a link's href.
  // The scheme is required as typed: new URL() would take "http:example.com" as http://example.com/.
  if (!/^https?:\/\//i.test(text) || !URL.canParse(text)) return undefined;
  const url = new URL(text);
  if (url.hostname === "" || url.username !== "" || url.password !== "") return undefined;
  return url.href;
}
