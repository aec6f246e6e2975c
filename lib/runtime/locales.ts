// The locale set from `Options.Locales` (SPEC §2.1); lib/i18n imports only lib/http's leaf files, so no cycle.
import { NewLocales } from "../i18n/index.ts";
import type { Options } from "./options.ts";
import type { HandlerFunc, Middleware } from "../http/index.ts";

/** The locale hooks the runtime mounts. */
export interface LocaleHooks {
  Middleware: Middleware;
  SwitchHandler: HandlerFunc;
}

/** Builds the locale hooks, or undefined when `Options.Locales` is unset. */
export function buildLocales(opts: Options): LocaleHooks | undefined {
  if (opts.Locales === undefined) return undefined;
  const codes = [...opts.Locales];
  return NewLocales(codes, opts.DefaultLocale ?? codes[0] ?? "en", undefined, opts.LocaleFS);
}
