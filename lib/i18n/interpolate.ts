/*
 * Message formatting: `{name}` placeholders and plural-key selection. A
 * placeholder whose name is not in the arguments is left as written, so a
 * missing argument is visible rather than silently empty.
 */
import type { MessageArgs } from "./types.ts";

const PLACEHOLDER = /\{([A-Za-z0-9_]+)\}/g;

/** Replaces each `{name}` in `message` with `args[name]`. */
export function interpolate(message: string, args: MessageArgs): string {
  return message.replace(PLACEHOLDER, (whole: string, name: string) => {
    if (!Object.hasOwn(args, name)) return whole;
    const value = args[name];
    return value === undefined ? whole : String(value);
  });
}

const rulesCache = new Map<string, Intl.PluralRules>();

/** Returns the CLDR cardinal category of `count` in `locale` (`"one"`, `"few"`...), `"other"` if Intl refuses the locale. */
export function pluralCategory(locale: string, count: number): string {
  let rules = rulesCache.get(locale);
  if (rules === undefined) {
    try {
      rules = new Intl.PluralRules(locale);
    } catch {
      return "other";
    }
    rulesCache.set(locale, rules);
  }
  return rules.select(count);
}

/**
 * Returns the keys to try, in order, for `key` in a catalog of `locale`:
 * `key_<category>`, `key_other`, then `key`; just `key` without a numeric `count`.
 */
export function candidateKeys(key: string, locale: string, args: MessageArgs | undefined): string[] {
  const count = args === undefined ? undefined : args["count"];
  if (typeof count !== "number") return [key];
  const category = pluralCategory(locale, count);
  return category === "other" ? [`${key}_other`, key] : [`${key}_${category}`, `${key}_other`, key];
}
