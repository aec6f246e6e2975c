/*
 * Intl formatters, made once per locale and options and then kept (issue 27): building one costs tens of microseconds,
 * and a list page built one for every amount and date it showed (BENCHMARKS.md (k)). They are kept by the options
 * object itself, so a caller passes a frozen constant (issue 44: the key was written from the options, with JSON.stringify, at
 * every cell of a list page); a fresh object each call still works, and makes a formatter each time. Past
 * FORMATTERS_KEPT locales of one options object (a caller passing something unbounded) its cache starts again rather
 * than grow.
 */

/** Locales kept of one options object (and entries of a `remembered` cache) before its cache starts again. */
const FORMATTERS_KEPT = 256;

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
  return remembered(byLocale, locale, make);
}

/**
 * Returns `cache`'s value for `key`, made by `make` the first time; past FORMATTERS_KEPT entries the cache starts
 * again. What a formatter answers for a locale or a currency (its digits, its separators) is kept with it (issue 44).
 */
export function remembered<V>(cache: Map<string, V>, key: string, make: () => V): V {
  let value = cache.get(key);
  if (value === undefined) {
    if (cache.size >= FORMATTERS_KEPT) cache.clear();
    value = make();
    cache.set(key, value);
  }
  return value;
}
