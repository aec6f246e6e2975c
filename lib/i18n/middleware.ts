/*
 * The Locales middleware: a declared prefix (removed from `req.url`), the cookie, Accept-Language, the
 * default (README "Resolving a request's locale"); `Vary` keeps shared caches to one copy per language.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { type HandlerFunc, type Middleware } from "../http/index.ts";
import { readCookie } from "../internal/index.ts";
import { findDeclared } from "./locale-code.ts";
import { negotiate } from "./negotiate.ts";
import { splitLocalePrefix } from "./prefix.ts";
import { bindLocale } from "./request.ts";
import { LocaleCookie, type LocaleSet } from "./types.ts";

/** Builds the middleware of a locale set. */
export function createMiddleware(locales: LocaleSet): Middleware {
  return function localeMiddleware(next: HandlerFunc): HandlerFunc {
    return function resolveLocale(req: IncomingMessage, res: ServerResponse): void | Promise<void> {
      const split = splitLocalePrefix(req.url ?? "/", locales.Codes);
      let code = split.code;
      if (code !== undefined) {
        req.url = split.path + split.query;
      } else {
        code = fromHeaders(req, locales);
        if (locales.Codes.length > 1) addVary(res, "Cookie, Accept-Language");
      }
      bindLocale(req, { locales, code, path: split.path });
      return next(req, res);
    };
  };
}

function fromHeaders(req: IncomingMessage, locales: LocaleSet): string {
  const cookie = readCookie(req.headers.cookie, LocaleCookie);
  const fromCookie = cookie === undefined ? undefined : findDeclared(locales.Codes, cookie);
  return fromCookie ?? negotiate(req.headers["accept-language"], locales.Codes, locales.Default);
}

function addVary(res: ServerResponse, value: string): void {
  const current = res.getHeader("Vary");
  const existing = Array.isArray(current) ? current.join(", ") : current === undefined ? "" : String(current);
  res.setHeader("Vary", existing === "" ? value : `${existing}, ${value}`);
}
