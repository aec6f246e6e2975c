/*
 * The demo's page shell: language and direction from the request's locale,
 * the fingerprinted stylesheet, a locale switcher built from LocaleItems
 * (a plain form POST to /_locale, so it works without JavaScript), and the
 * scripts a page asks for, all from /static (CSP script-src 'self').
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { html, type SafeHTML } from "../../../lib/http/index.ts";
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

function localeSwitcher(req: IncomingMessage): SafeHTML {
  const items = LocaleItems(req);
  if (items.length === 0) return html``;
  const here = req.url ?? "/";
  return html`<form class="locales row" method="post" action="${LocaleSwitchPath}" aria-label="${T(req, "locale.switch")}">
  ${Icon("globe")}<input type="hidden" name="next" value="${here}">
  ${items.map((item) => html`<button name="locale" value="${item.Code}" lang="${item.Code}" aria-current="${item.Current ? "true" : "false"}">${item.Name}</button>`)}
</form>`;
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
