/*
 * The demo's pages are examples/starter's; the demo's own pages (home,
 * account, agents, jobs), and the starter's given a layout (security,
 * teams, operators), render in the starter's shell with one more
 * stylesheet, static/demo.css, for what only they show, and the demo's
 * signed-in navigation (`demoNav`).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Assets } from "../../../lib/assets/index.ts";
import { html } from "../../../lib/http/index.ts";
import { T } from "../../../lib/i18n/index.ts";
import { render as renderStarter, type NavLink, type Page } from "../../starter/pages/layout.ts";

/** The demo's signed-in pages, in the header of each. */
function demoNav(req: IncomingMessage): NavLink[] {
  return [
    { href: "/account", label: T(req, "account.title") },
    { href: "/expenses", label: T(req, "expenses.title") },
    { href: "/notes", label: T(req, "notes.title") },
    { href: "/teams", label: T(req, "starter.teams.title") },
    { href: "/account/agents", label: T(req, "demo.agents.title") },
    { href: "/account/approvals", label: T(req, "starter.approvals.title") },
    { href: "/account/activity", label: T(req, "demo.activity.title") },
    { href: "/account/security", label: T(req, "demo.fresh.title") },
  ];
}

/** Renders a full page in the starter's shell, with the demo's stylesheet, and ends the response. */
export function render(req: IncomingMessage, res: ServerResponse, assets: Assets, page: Page, status = 200): void {
  const head = html`<link rel="stylesheet" href="${assets.Path("demo.css")}">
${page.head ?? html``}`;
  renderStarter(req, res, assets, { nav: demoNav(req), ...page, head }, status);
}
