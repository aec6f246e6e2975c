/// <reference types="node" preserve="true" />
export { LocaleCookie, LocaleSwitchPath } from "./types.ts";
export { NewLocales } from "./locales.ts";
export { T, Tf, LocaleFrom, LocaleItems } from "./request.ts";
export { BaseCatalog, BaseCatalogs, BaseLocales, BaseKeys, IsBaseKey } from "./base.ts";
export { Dir } from "./direction.ts";
export { interpolate } from "./interpolate.ts";
export { negotiate, parseAcceptLanguage } from "./negotiate.ts";
export { I18nError, I18N_ERROR_CODES, isI18nError } from "./errors.ts";
export type { Catalog, LocaleItem, MessageArgs } from "./types.ts";
export type { Locales } from "./locales.ts";
export type { Direction } from "./direction.ts";
export type { LanguageRange } from "./negotiate.ts";
export type { I18nErrorCode } from "./errors.ts";
