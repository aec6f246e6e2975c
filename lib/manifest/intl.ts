/*
 * Intl formatters, made once per locale and options and then kept (issue 27): building one costs tens of microseconds,
 * and a list page built one for every amount and date it showed (BENCHMARKS.md (k)). They are kept by the options
 * object itself, so a caller passes a frozen constant (issue 44: the key was written from the options, with JSON.stringify, at
 * every cell of a list page); a fresh object each call still works, and makes a formatter each time. Past
 * FORMATTERS_KEPT locales of one options object (a caller passing something unbounded) its cache starts again rather
 * than grow.
 */
import { remembered } from "../internal/index.ts";

/**
 * Locales kept of one options object, and what a formatter answers for a currency or a locale (money.ts: its digits,
 * its separators), before the cache starts again (lib/internal `remembered`).
 */
export const FORMATTERS_KEPT = 256;

const numbers = new WeakMap<object, Map<string, Intl.NumberFormat>>();
const dates = new WeakMap<object, Map<string, Intl.DateTimeFormat>>();

/** Returns `new Intl.NumberFormat(locale, options)`, made once. */
export function numberFormat(locale: string, options: Intl.NumberFormatOptions): Intl.NumberFormat {
  return kept(numbers, locale, options, () => new Intl.NumberFormat(locale, options));
}

/** Returns `new Intl.DateTimeFormat(locale, options)`, made once. */
export function dateTimeFormat(locale: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  return kept(dates, locale, options, () => new Intl.DateTimeFormat(locale, options));
}

function kept<F>(cache: WeakMap<object, Map<string, F>>, locale: string, options: object, make: () => F): F {
  let byLocale = cache.get(options);
  if (byLocale === undefined) {
    byLocale = new Map();
    cache.set(options, byLocale);
  }
  return remembered(byLocale, locale, make, FORMATTERS_KEPT);
}
