/*
 * The resolved locale set of an app (SPEC.md §2.4), looking keys up in SPEC.md §4.4's order (README
 * "Lookup order"); with a numeric `count` each level tries its plural variants first, by its own rules.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import type { HandlerFunc, Middleware } from "../http/index.ts";
import { englishCatalog, frameworkCatalogFor, frameworkHas } from "./base.ts";
import { readOptionalCatalog, toMessageMap, type MessageMap } from "./catalog-file.ts";
import { I18nError } from "./errors.ts";
import { candidateKeys, interpolate } from "./interpolate.ts";
import { canonicalLocale, findDeclared } from "./locale-code.ts";
import { createMiddleware } from "./middleware.ts";
import { createSwitchHandler } from "./switch.ts";
import type { Catalog, LocaleSet, MessageArgs } from "./types.ts";

/** A declared set of locales with the app's catalogs. Build it with `NewLocales`. */
export class Locales implements LocaleSet {
  /** The declared locale codes, canonical case, in declaration order. */
  readonly Codes: readonly string[];
  /** The default locale code (one of `Codes`). */
  readonly Default: string;
  /** Resolves each request's locale and strips a locale prefix from its path (see the module README). */
  readonly Middleware: Middleware;
  /** The `POST /_locale` handler: sets the locale cookie and redirects (303). */
  readonly SwitchHandler: HandlerFunc;
  #app: ReadonlyMap<string, MessageMap>;
  // Per declared code: the catalogs its lookups try, in order, and the messages found without a count.
  #declared = new Map<string, { levels: readonly Level[]; found: Map<string, string> }>();

  constructor(codes: readonly string[], defaultCode: string, app: ReadonlyMap<string, MessageMap>) {
    this.Codes = Object.freeze([...codes]);
    this.Default = defaultCode;
    this.#app = app;
    this.Middleware = createMiddleware(this);
    this.SwitchHandler = createSwitchHandler(this);
  }

  /** Reports whether the app declared `code` (case-insensitive). */
  Has(code: string): boolean {
    return findDeclared(this.Codes, code) !== undefined;
  }

  /** Reports whether the framework ships a catalog for `code` (case-insensitive). */
  FrameworkHas(code: string): boolean {
    return frameworkHas(code);
  }

  /** Returns the message for `key` in `locale`, following the lookup order; the key itself when no catalog has it. */
  T(locale: string, key: string): string {
    return this.#lookup(locale, key, undefined) ?? key;
  }

  /** Like `T`, then fills `{name}` placeholders; a numeric `count` selects the plural form. */
  Tf(locale: string, key: string, args: MessageArgs): string {
    const message = this.#lookup(locale, key, args);
    return message === undefined ? key : interpolate(message, args);
  }

  #lookup(locale: string, key: string, args: MessageArgs | undefined): string | undefined {
    // A request's locale is a declared code as written: found without lowercasing every code.
    const declared = this.Codes.includes(locale) ? locale : findDeclared(this.Codes, locale);
    const kept = declared === undefined ? undefined : this.#keptFor(declared);
    const levels = kept?.levels ?? this.#levelsFrom(locale);
    // A message without a count is the same every time in a declared locale (the catalogs never change after
    // NewLocales): found once, then kept (issue 44: every label of every page looks one up). Only found messages are
    // kept, so the cache holds at most the catalogs' keys.
    const found = typeof args?.["count"] === "number" ? undefined : kept?.found;
    const known = found?.get(key);
    if (known !== undefined) return known;
    for (const [levelLocale, messages] of levels) {
      for (const candidate of candidateKeys(key, levelLocale, args)) {
        const message = messages.get(candidate);
        if (message === undefined) continue;
        found?.set(key, message);
        return message;
      }
    }
    return undefined;
  }

  // What a declared locale's lookups keep, its levels worked out on the first.
  #keptFor(code: string): { levels: readonly Level[]; found: Map<string, string> } {
    let kept = this.#declared.get(code);
    if (kept === undefined) {
      kept = { levels: this.#levelsFrom(code), found: new Map() };
      this.#declared.set(code, kept);
    }
    return kept;
  }

  // SPEC.md §4.4's order: the locale's app catalog, the app default's, the framework's for the locale, framework English.
  #levelsFrom(code: string): readonly Level[] {
    const framework = frameworkCatalogFor(code);
    const levels: [string, MessageMap | undefined][] = [
      [code, this.#app.get(code)],
      [this.Default, this.#app.get(this.Default)],
      [framework?.code ?? code, framework?.messages],
      ["en", englishCatalog()],
    ];
    return levels.filter((level): level is [string, MessageMap] => level[1] !== undefined);
  }
}

/** One level of the lookup order: a catalog and the locale whose plural rules pick its keys. */
type Level = readonly [string, MessageMap];

/**
 * Builds the locale set of an app: `baseCatalog` the default locale's messages, `dir` the app's
 * `<code>.json` catalogs (the default's merged over `baseCatalog`). Throws `I18nError` (README "Catalogs").
 *
 * @example
 * const locales = NewLocales(["en", "fr"], "en", { "app.title": "Notes" }, "./locales");
 */
export function NewLocales(codes: string[], defaultCode: string, baseCatalog: Catalog | undefined, dir: string | undefined): Locales {
  if (codes.length === 0) throw new I18nError("ERR_I18N_NO_LOCALES", "new locales: no locale codes given");
  const declared: string[] = [];
  for (const raw of codes) {
    const code = canonicalLocale(raw);
    if (code === undefined) throw new I18nError("ERR_I18N_BAD_LOCALE", `new locales: malformed locale code ${JSON.stringify(raw)}`);
    if (findDeclared(declared, code) !== undefined) {
      throw new I18nError("ERR_I18N_DUPLICATE_LOCALE", `new locales: locale ${code} declared twice`);
    }
    declared.push(code);
  }
  const def = findDeclared(declared, defaultCode);
  if (def === undefined) {
    throw new I18nError("ERR_I18N_UNKNOWN_DEFAULT", `new locales: default locale ${JSON.stringify(defaultCode)} is not in the list`);
  }
  if (dir !== undefined) checkDirectory(dir);
  const app = new Map<string, MessageMap>();
  for (const code of declared) {
    const fromDir = dir === undefined ? undefined : readOptionalCatalog(join(dir, `${code}.json`));
    if (code !== def) {
      if (fromDir !== undefined) app.set(code, fromDir);
      continue;
    }
    const merged = baseCatalog === undefined ? new Map<string, string>() : toMessageMap(baseCatalog, "baseCatalog");
    for (const [k, v] of fromDir ?? []) merged.set(k, v);
    app.set(code, merged);
  }
  return new Locales(declared, def, app);
}

function checkDirectory(dir: string): void {
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch (cause) {
    throw new I18nError("ERR_I18N_CATALOG_UNREADABLE", `new locales: cannot read catalog directory ${dir}`, { cause });
  }
  if (!isDir) throw new I18nError("ERR_I18N_CATALOG_UNREADABLE", `new locales: ${dir} is not a directory`);
}
