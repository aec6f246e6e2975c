/*
 * Per-request locale state, recorded by the Locales middleware in a lib/internal request slot
 * (docs/design.md §3) and read back by the accessors; a request it never saw is framework English.
 */
import type { IncomingMessage } from "node:http";
import { requestSlot } from "../internal/index.ts";
import { englishCatalog } from "./base.ts";
import { candidateKeys, interpolate } from "./interpolate.ts";
import type { LocaleItem, LocaleSet, MessageArgs } from "./types.ts";
import { nativeName } from "./native-name.ts";

/** What the middleware stores for a request. */
export interface RequestLocale {
  /** The locale set whose middleware saw the request. */
  locales: LocaleSet;
  /** The resolved locale code. */
  code: string;
  /** The request path after the locale prefix was removed, without the query. */
  path: string;
}

const state = requestSlot<RequestLocale>();

/** The locale of a request no Locales middleware has seen. */
const FRAMEWORK_DEFAULT = "en";

/** Records the resolved locale of `req`. */
export function bindLocale(req: IncomingMessage, value: RequestLocale): void {
  state.set(req, value);
}

/** Returns the locale code of the request: the one the Locales middleware resolved, `"en"` when none ran. */
export function LocaleFrom(req: IncomingMessage): string {
  return state.get(req)?.code ?? FRAMEWORK_DEFAULT;
}

/**
 * Returns the message for `key` in the request's locale, following the
 * lookup order (app, app default, framework, framework English, key).
 */
export function T(req: IncomingMessage, key: string): string {
  const bound = state.get(req);
  return bound === undefined ? frameworkOnly(key, undefined) : bound.locales.T(bound.code, key);
}

/**
 * Like `T`, then fills `{name}` placeholders from `args`; a numeric `count`
 * picks the plural form (`key_one`, `key_few`... then `key_other`, then `key`).
 *
 * @example
 * Tf(req, "passkey.recovery.remaining", { count: 3 }); // "3 recovery codes left"
 */
export function Tf(req: IncomingMessage, key: string, args: MessageArgs): string {
  const bound = state.get(req);
  return bound === undefined ? frameworkOnly(key, args) : bound.locales.Tf(bound.code, key, args);
}

function frameworkOnly(key: string, args: MessageArgs | undefined): string {
  const en = englishCatalog();
  for (const candidate of candidateKeys(key, FRAMEWORK_DEFAULT, args)) {
    const message = en.get(candidate);
    if (message !== undefined) return args === undefined ? message : interpolate(message, args);
  }
  return key;
}

/**
 * Returns one menu item per declared locale: its own name, the current path
 * under its prefix and whether it is the request's locale. Empty for a
 * one-locale app or a request the Locales middleware did not see.
 */
export function LocaleItems(req: IncomingMessage): LocaleItem[] {
  const bound = state.get(req);
  if (bound === undefined || bound.locales.Codes.length < 2) return [];
  return bound.locales.Codes.map((code) => ({
    Code: code,
    Name: nativeName(code),
    Href: `/${code}${bound.path}`,
    Current: code === bound.code,
  }));
}
