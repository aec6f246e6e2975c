/*
 * The demo's page shell: language and direction from the request's locale,
 * the fingerprinted stylesheet, a one-row locale switcher built from
 * LocaleItems (a <select> in a plain form POST to /_locale, so it works
 * without JavaScript), the 404 page, and the
 * scripts a page asks for, all from /static (CSP script-src 'self').
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { html, type HandlerFunc, type SafeHTML } from "../../../lib/http/index.ts";
import { Dir, LocaleFrom, LocaleItems, LocaleSwitchPath, T, Tf } from "../../../lib/i18n/index.ts";
import { Icon } from "../../../lib/icons/index.ts";
import type { Assets } from "../../../lib/assets/index.ts";

/** What a page puts into the shell. */
export interface Page {
  title: string;
  body: SafeHTML;
  /** Attributes on <body>, e.g. data-subject. */
  bodyAttrs?: Record<string, string>;
  /** Asset names of scripts to load (deferred). */
  scripts?: string[];
  /** Extra <head> markup (e.g. the jobs page's meta refresh). */
  head?: SafeHTML;
}

// One row, no JavaScript: a <select> and a submit button posting to /_locale.
function localeSwitcher(req: IncomingMessage): SafeHTML {
  const items = LocaleItems(req);
  if (items.length === 0) return html``;
  return html`<form class="locales" method="post" action="${LocaleSwitchPath}">
  <input type="hidden" name="next" value="${req.url ?? "/"}">
  <label for="locale">${Icon("globe")}<span class="visually-hidden">${T(req, "locale.switch")}</span></label>
  <select id="locale" name="locale">${items.map(
    (item) => html`<option value="${item.Code}" lang="${item.Code}"${item.Current ? html` selected` : html``}>${item.Name}</option>`,
  )}</select>
  <button class="secondary" type="submit">${T(req, "locale.submit")}</button>
</form>`;
}

/** A session method in words: "magiclink+passkey" → "email link + passkey", translated. */
export function methodName(req: IncomingMessage, method: string): string {
  return method
    .split("+")
    .map((part) => T(req, `demo.method.${part}`))
    .join(" + ");
}

/** Renders a full page and ends the response. */
export function render(req: IncomingMessage, res: ServerResponse, assets: Assets, page: Page, status = 200): void {
  const locale = LocaleFrom(req);
  const attrs = Object.entries(page.bodyAttrs ?? {}).map(([k, v]) => html` ${k}="${v}"`);
  const doc = html`<!doctype html>
<html lang="${locale}" dir="${Dir(locale)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${page.title} · latch</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${assets.Path("app.css")}">
${page.head}
${(page.scripts ?? []).map((name) => html`<script type="module" src="${assets.Path(name)}"></script>`)}
</head>
<body${attrs}>
<header><a class="brand" href="/">${Icon("lock")} ${T(req, "demo.title")}</a>${localeSwitcher(req)}</header>
<main>
${page.body}
</main>
</body>
</html>
`;
  const body = doc.toString();
  res.statusCode = status;
  res.setHeader("Content-Type", "text/html; charset=utf-8");
  res.setHeader("Content-Length", Buffer.byteLength(body));
  res.setHeader("Cache-Control", "no-store");
  res.end(body);
}

/** Mounted on `/`, the least specific pattern: the page for every path no route matches. */
export function notFoundPage(assets: Assets): HandlerFunc {
  return (req, res) =>
    render(req, res, assets, {
      title: T(req, "error.not_found"),
      body: html`<section class="card" data-status="404">
  <h1>${Icon("info")} ${T(req, "error.not_found")}</h1>
  <p>${T(req, "demo.not_found.body")}</p>
  <p><a href="/">${T(req, "error.back_home")}</a></p>
</section>`,
    }, 404);
}

/**
 * The demo's `ErrorPage` (SPEC §2.2): a translated page in the site's
 * layout showing the reference that is also in the log.
 */
export function errorPage(req: IncomingMessage, res: ServerResponse, assets: Assets, status: number, ref: string): void {
  render(req, res, assets, {
    title: T(req, "error.title"),
    body: html`<section class="card notice bad" role="alert">
  <h1>${Icon("alert")} ${T(req, "error.title")}</h1>
  <p>${Tf(req, "error.reference", { ref })}</p>
  <p><a href="/">${T(req, "error.back_home")}</a></p>
</section>`,
  }, status);
}
