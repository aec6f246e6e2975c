/*
 * The locale switch route, `POST /_locale` (SPEC.md §4.4; README "The switch route"): writes the
 * `framework_locale` cookie and answers 303 to a same-origin `next` under the chosen prefix. It refuses
 * a browser's cross-origin POST itself (the Fetch Metadata rule of `crossOriginProtection`), for apps without it.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { isLocalPath, readForm, isLatchError, type HandlerFunc } from "../http/index.ts";
import { crossOriginVerdict, appendSetCookie, serializeCookie, writeText } from "../internal/index.ts";
import { findDeclared } from "./locale-code.ts";
import { splitLocalePrefix } from "./prefix.ts";
import { LocaleCookie, type LocaleSet } from "./types.ts";

/** One year, in seconds: how long the locale choice is remembered. */
const COOKIE_MAX_AGE = 31_536_000;
/** The switch form is two short fields. */
const FORM_LIMIT = 4096;
/** Longest `next` accepted. */
const MAX_NEXT = 2048;

/** Returns `next` when it is a same-origin path (`isLocalPath`), else "/". */
export function safeNext(next: string | null): string {
  return next !== null && next.length <= MAX_NEXT && isLocalPath(next) ? next : "/";
}

/** Builds the switch handler of a locale set. */
export function createSwitchHandler(locales: LocaleSet): HandlerFunc {
  return async function switchLocale(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== "POST") return writeText(res.setHeader("Allow", "POST"), 405, "locale switch: use POST");
    if (crossOriginVerdict(req, undefined) === "cross-origin") return writeText(res, 403, "locale switch: cross-origin request refused");
    let form: URLSearchParams;
    try {
      form = await readForm(req, { limit: FORM_LIMIT });
    } catch (e) {
      if (isLatchError(e) && e.status !== undefined) return writeText(res, e.status, e.message);
      throw e;
    }
    const code = findDeclared(locales.Codes, form.get("locale") ?? "");
    // SPEC.md §4.4: only a declared locale is written to the cookie.
    if (code === undefined) return writeText(res, 400, "locale switch: unknown locale");
    const target = safeNext(form.get("next"));
    const split = splitLocalePrefix(target, locales.Codes);
    const location = split.code === undefined ? target : `/${code}${split.path}${split.query}`;
    // The locale is no secret: Secure only when this hop is TLS (behind a TLS proxy it is left off).
    const secure = "encrypted" in req.socket && req.socket.encrypted === true;
    appendSetCookie(res, serializeCookie(LocaleCookie, code, { path: "/", maxAge: COOKIE_MAX_AGE, sameSite: "Lax", secure }));
    res.writeHead(303, { Location: location });
    res.end();
  };
}
