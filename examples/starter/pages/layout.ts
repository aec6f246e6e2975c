/*
 * The starter's page shell: language and direction from the request's
 * locale, one stylesheet, a one-row language menu (a <select> and a submit
 * button posting to /_locale: it works without JavaScript), and the
 * scripts a page asks for, all from /static (CSP script-src 'self').
 * A signed-in page's header carries a navigation row (`Page.nav`, by
 * default the account page; `starterNav` names the starter's own pages),
 * the current page marked `aria-current="page"`, and, once the application
 * called `showWaiting`, how many agent calls wait for the person
 * (`waitingLink`), followed live by lib/client's jobs.js, which polls
 * `/<locale>/account/approvals/waiting` every WAITING_POLL_SECONDS.
 * `methodName` turns a session method ("magiclink+passkey") into words.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Assets } from "latch/assets";
import { html, type SafeHTML } from "latch/http";
import { Dir, LocaleFrom, LocaleItems, LocaleSwitchPath, T, Tf } from "latch/i18n";
import { Icon } from "latch/icons";
import { From } from "latch/signin";

/** What a page puts into the shell. */
export interface Page {
  title: string;
  body: SafeHTML;
  /** Attributes on <body>, e.g. data-subject. */
  bodyAttrs?: Record<string, string>;
  /** Asset names of scripts to load (modules, deferred). */
  scripts?: string[];
  /** Extra <head> markup (the job page's no-script refresh). */
  head?: SafeHTML;
  /** The header's navigation when signed in; by default the account page alone. */
  nav?: readonly NavLink[];
}

/** A link of the signed-in navigation. */
export interface NavLink {
  href: string;
  label: string;
}

/** The starter's signed-in pages: the account, the agent tokens, the approvals, the security page. */
export function starterNav(req: IncomingMessage): NavLink[] {
  return [
    { href: "/account", label: T(req, "account.title") },
    { href: "/account/agents", label: T(req, "starter.agents.title") },
    { href: "/account/approvals", label: T(req, "starter.approvals.title") },
    { href: "/account/security", label: T(req, "starter.account.security.title") },
  ];
}

function navigation(req: IncomingMessage, links: readonly NavLink[] | undefined): SafeHTML {
  if (From(req) === undefined) return html``;
  const path = (req.url ?? "/").split("?")[0];
  const items = links ?? [{ href: "/account", label: T(req, "account.title") }];
  return html`<nav class="site">${items.map(
    (link) => html`<a href="${link.href}"${link.href === path ? html` aria-current="page"` : html``}>${link.label}</a>`,
  )}</nav>`;
}

/** Seconds between two reads of the waiting count by an open page (lib/client jobs.js polls its fragment). */
export const WAITING_POLL_SECONDS = 10;

// The waiting count of each application's pages, by its assets (one `Assets` per application, given to every render).
const waitingCounts = new WeakMap<Assets, (subject: string) => number>();

/** Makes every signed-in page rendered with `assets` show `count(subject)`, the calls waiting for its person. */
export function showWaiting(assets: Assets, count: (subject: string) => number): void {
  waitingCounts.set(assets, count);
}

/** The count's link: the calls waiting for the person (`data-approvals-waiting`), hidden when none; the fragment polled. */
export function waitingLink(req: IncomingMessage, count: number): SafeHTML {
  return html`<a href="/account/approvals" data-approvals-waiting="${String(count)}"${count === 0 ? html` hidden` : html``}>${Icon("alert")} ${Tf(req, "starter.approvals.waiting", { count })}</a>`;
}

function waiting(req: IncomingMessage, assets: Assets): SafeHTML {
  const count = waitingCounts.get(assets);
  const subject = From(req)?.Subject;
  if (count === undefined || subject === undefined) return html``;
  // Under the page's locale prefix, as the jobs page's fragment (pages/jobs.ts): the count's words stay in the page's language.
  return html`<span class="waiting" data-poll="/${LocaleFrom(req)}/account/approvals/waiting" data-poll-every="${String(WAITING_POLL_SECONDS)}">${waitingLink(req, count(subject))}</span>
<script type="module" src="${assets.Path("jobs.js")}"></script>`;
}

function languageMenu(req: IncomingMessage): SafeHTML {
  const items = LocaleItems(req);
  if (items.length === 0) return html``;
  return html`<form class="language" method="post" action="${LocaleSwitchPath}">
  <input type="hidden" name="next" value="${req.url ?? "/"}">
  <label for="language">${Icon("globe")}<span class="visually-hidden">${T(req, "locale.switch")}</span></label>
  <select id="language" name="locale">${items.map(
    (item) => html`<option value="${item.Code}" lang="${item.Code}"${item.Current ? html` selected` : html``}>${item.Name}</option>`,
  )}</select>
  <button class="secondary" type="submit">${T(req, "locale.submit")}</button>
</form>`;
}

/** Renders a full page with `status` and ends the response. */
export function render(req: IncomingMessage, res: ServerResponse, assets: Assets, page: Page, status = 200): void {
  const locale = LocaleFrom(req);
  const attrs = Object.entries(page.bodyAttrs ?? {}).map(([k, v]) => html` ${k}="${v}"`);
  const body = html`<!doctype html>
<html lang="${locale}" dir="${Dir(locale)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${page.title} · ${T(req, "starter.name")}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${assets.Path("starter.css")}">
${page.head ?? html``}
${(page.scripts ?? []).map((name) => html`<script type="module" src="${assets.Path(name)}"></script>`)}
</head>
<body${attrs}>
<header><a class="brand" href="/">${Icon("lock")} ${T(req, "starter.name")}</a>${languageMenu(req)}${navigation(req, page.nav)}${waiting(req, assets)}</header>
<main>
${page.body}
</main>
</body>
</html>
`.toString();
  res.statusCode = status;
  res.setHeader("Content-Type", "text/html; charset=utf-8");
  res.setHeader("Cache-Control", "no-store");
  res.end(body);
}

/** A session method in words: "magiclink+passkey" → "Email link + passkey", translated. */
export function methodName(req: IncomingMessage, method: string): string {
  return method
    .split("+")
    .map((part) => T(req, `starter.method.${part}`))
    .join(" + ");
}
