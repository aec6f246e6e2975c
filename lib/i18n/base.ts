/*
 * The framework's own catalogs (its pages' and emails' messages), `catalogs/<code>.json` at the package
 * root, read once on first use; a missing or broken one is a packaging bug and throws.
 */
import { fileURLToPath } from "node:url";
import { readCatalog, type MessageMap } from "./catalog-file.ts";
import { findDeclared } from "./locale-code.ts";
import { matchLocale } from "./negotiate.ts";
import type { Catalog } from "./types.ts";

// Compiled, this file is dist/lib/i18n/base.js (catalogs three levels up); run as
// source (a source drop, docs/supply-chain.md#vendoring) it is lib/i18n/base.ts,
// two levels up. The bundle rewrites import.meta.url to the compiled file's.
const CATALOG_DIR = new URL(import.meta.url.endsWith(".ts") ? "../../catalogs/" : "../../../catalogs/", import.meta.url);

/** The 12 locales the framework ships, English first. */
const BASE_LOCALES: readonly string[] = Object.freeze(["en", "es", "pt-BR", "fr", "de", "ru", "ar", "zh-CN", "ja", "id", "tr", "ko"]);

let loaded: ReadonlyMap<string, MessageMap> | undefined;

function catalogs(): ReadonlyMap<string, MessageMap> {
  loaded ??= new Map(BASE_LOCALES.map((code) => [code, readCatalog(fileURLToPath(new URL(`${code}.json`, CATALOG_DIR)))]));
  return loaded;
}

/** Returns the framework's English catalog, the reference every other catalog completes. */
export function englishCatalog(): MessageMap {
  return catalogs().get("en") ?? new Map<string, string>();
}

/**
 * Returns the shipped catalog that serves `locale` (exact code, then a
 * shorter or same-language-and-script one: `de-AT` -> `de`, `pt` -> `pt-BR`),
 * or `undefined`.
 */
export function frameworkCatalogFor(locale: string): { code: string; messages: MessageMap } | undefined {
  const code = matchLocale(locale, BASE_LOCALES);
  const messages = code === undefined ? undefined : catalogs().get(code);
  return code === undefined || messages === undefined ? undefined : { code, messages };
}

function toCatalog(map: MessageMap): Catalog {
  return Object.freeze(Object.assign(Object.create(null) as Record<string, string>, Object.fromEntries(map)));
}

/** Returns a copy of the framework's English catalog. */
export function BaseCatalog(): Catalog {
  return toCatalog(englishCatalog());
}

/** Returns every shipped catalog by locale code (copies), in `BaseLocales()` order. */
export function BaseCatalogs(): Map<string, Catalog> {
  return new Map([...catalogs()].map(([code, map]) => [code, toCatalog(map)]));
}

/** Returns the codes of the 12 shipped catalogs, English first. */
export function BaseLocales(): string[] {
  return [...BASE_LOCALES];
}

/** Returns the keys of the framework's English catalog, sorted. Other locales may add plural variants (`_few`, `_many`...). */
export function BaseKeys(): string[] {
  return [...englishCatalog().keys()].sort();
}

const PLURAL_SUFFIX = /_(?:zero|one|two|few|many|other)$/;

/**
 * Reports whether `key` is one of the framework's own message keys, counting
 * every plural variant of a plural key (`passkey.recovery.remaining_few`).
 */
export function IsBaseKey(key: string): boolean {
  const en = englishCatalog();
  if (en.has(key)) return true;
  return PLURAL_SUFFIX.test(key) && en.has(key.replace(PLURAL_SUFFIX, "_other"));
}

/** Reports whether the framework ships a catalog for exactly this code (case-insensitive). */
export function frameworkHas(code: string): boolean {
  return findDeclared(BASE_LOCALES, code) !== undefined;
}
