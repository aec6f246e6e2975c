/*
 * The localization vocabulary of the contract (SPEC.md §2.4): catalogs,
 * locale-menu items and the two wire names.
 */

/**
 * A catalog: a flat map from message key to message. Placeholders of the
 * form `{name}` are filled by `Tf`; plural forms live under `key_one`,
 * `key_few`, `key_many`, `key_other`... (see the module README).
 */
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

/** The cookie that remembers the locale a user picked. */
export const LocaleCookie = "framework_locale";

/** The path of the locale switch route (`POST`). */
export const LocaleSwitchPath = "/_locale";
