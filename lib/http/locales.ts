/* Placeholder replaced when lib/i18n lands (same session). */
import type { Options } from "./options.ts";
import type { HandlerFunc, Middleware } from "./types.ts";

/** The locale hooks the runtime mounts. */
export interface LocaleHooks {
  Middleware: Middleware;
  SwitchHandler: HandlerFunc;
}

/** Builds the locale hooks from `Options.Locales`, or undefined when unset. */
export function buildLocales(opts: Options): LocaleHooks | undefined {
  if (opts.Locales === undefined) return undefined;
  throw new Error("i18n not merged yet");
}
