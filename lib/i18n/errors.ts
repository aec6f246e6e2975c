/*
 * Errors thrown by the localization module. All of them are configuration
 * mistakes found when `NewLocales` builds the locale set or when the shipped
 * catalogs cannot be read, so they fail at startup, never per request.
 */
import { LatchError } from "../http/index.ts";
import { hasErrorCode } from "../internal/index.ts";

/** The codes thrown by the localization module, each equal to its key. */
export const I18N_ERROR_CODES = {
  ERR_I18N_NO_LOCALES: "ERR_I18N_NO_LOCALES",
  ERR_I18N_BAD_LOCALE: "ERR_I18N_BAD_LOCALE",
  ERR_I18N_DUPLICATE_LOCALE: "ERR_I18N_DUPLICATE_LOCALE",
  ERR_I18N_UNKNOWN_DEFAULT: "ERR_I18N_UNKNOWN_DEFAULT",
  ERR_I18N_CATALOG_UNREADABLE: "ERR_I18N_CATALOG_UNREADABLE",
  ERR_I18N_CATALOG_INVALID: "ERR_I18N_CATALOG_INVALID",
} as const;

/** A localization error code. */
export type I18nErrorCode = keyof typeof I18N_ERROR_CODES;

/** An error from the localization module: bad locale codes or catalogs. */
export class I18nError extends LatchError<I18nErrorCode> {
  override name: string = "I18nError";
}

/** Reports whether `e` is a localization error (checked by `code`, not `instanceof`). */
export function isI18nError(e: unknown): e is I18nError {
  return hasErrorCode(e, I18N_ERROR_CODES);
}
