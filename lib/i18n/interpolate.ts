/*
 * Message formatting: `{name}` placeholders and plural-key selection. A
 * placeholder whose name is not in the arguments is left as written, so a
 * missing argument is visible rather than silently empty.
 */
import { remembered } from "../internal/index.ts";
import type { MessageArgs } from "./types.ts";

// A message split at its placeholders: text, name, text, name, ..., text (an odd count, names at the odd places).
const PLACEHOLDER = /\{([A-Za-z0-9_]+)\}/;

/** Messages kept split (lib/internal `remembered`): the catalogs' messages, and any other text past them starts again. */
const MESSAGES_KEPT = 4096;

const split = new Map<string, readonly string[]>();

/** Replaces each `{name}` in `message` with `args[name]`. */
export function interpolate(message: string, args: MessageArgs): string {
  // Split once per message, then filled (issue 44: a list page fills one label a row; a regular expression's replace
  // with a function cost six times as much).
  const parts = remembered(split, message, () => message.split(PLACEHOLDER), MESSAGES_KEPT);
  let out = parts[0] ?? "";
  for (let i = 1; i < parts.length; i += 2) {
    const name = parts[i] ?? "";
    const value = Object.hasOwn(args, name) ? args[name] : undefined;
    out += (value === undefined ? `{${name}}` : String(value)) + (parts[i + 1] ?? "");
  }
  return out;
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
