/* The localization vocabulary of the contract (SPEC.md §2.4) and what the per-request half reads of a locale set. */

/** A catalog: a flat map from key to message, `{name}` placeholders and plural keys (`key_one`...) as README says. */
export type Catalog = Readonly<Record<string, string>>;

/** Arguments for `Tf`: placeholder name to value. A numeric `count` also selects the plural form. */
export type MessageArgs = Readonly<Record<string, string | number>>;

/** One entry of a language menu, as returned by `LocaleItems`. */
export interface LocaleItem {
  /** The locale code, e.g. `"pt-BR"`. */
  Code: string;
  /** The language's own name in that language, e.g. `"Deutsch"`. */
  Name: string;
  /** The current path under this locale's prefix, e.g. `"/de/account"`. */
  Href: string;
  /** Reports whether this is the request's locale. */
  Current: boolean;
}

/** What the middleware, switch and accessors read of a locale set: `Locales` builds them from itself, so no import circle. */
export interface LocaleSet {
  /** The declared locale codes, canonical case, in declaration order. */
  readonly Codes: readonly string[];
  /** The default locale code (one of `Codes`). */
  readonly Default: string;
  /** Returns the message for `key` in `locale`, following the lookup order. */
  T(locale: string, key: string): string;
  /** Like `T`, then fills `{name}` placeholders. */
  Tf(locale: string, key: string, args: MessageArgs): string;
}

/** The cookie that remembers the locale a user picked. */
export const LocaleCookie = "framework_locale";

/** The path of the locale switch route (`POST`). */
export const LocaleSwitchPath = "/_locale";
