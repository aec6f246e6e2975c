/// <reference types="node" preserve="true" />
export { LocaleCookie, LocaleSwitchPath } from "./types.ts";
export { NewLocales } from "./locales.ts";
export { T, Tf, LocaleFrom, LocaleItems } from "./request.ts";
export { BaseCatalog, BaseCatalogs, BaseLocales, BaseKeys, IsBaseKey } from "./base.ts";
export { Dir } from "./direction.ts";
export { interpolate } from "./interpolate.ts";
export type { Catalog, LocaleItem } from "./types.ts";
export type { Locales } from "./locales.ts";
// Named by the signatures above (issue 42: a public signature names only public types).
export type { Direction } from "./direction.ts";
export type { MessageArgs, LocaleSet } from "./types.ts";
export type { MessageMap } from "./catalog-file.ts";
