/*
 * The demo's pages are examples/starter's; the demo's own pages (home,
 * account, security, agents, jobs) render in the starter's shell with one
 * more stylesheet, static/demo.css, for what only they show.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Assets } from "../../../lib/assets/index.ts";
import { html } from "../../../lib/http/index.ts";
import { render as renderStarter, type Page } from "../../starter/pages/layout.ts";

/** Renders a full page in the starter's shell, with the demo's stylesheet, and ends the response. */
export function render(req: IncomingMessage, res: ServerResponse, assets: Assets, page: Page, status = 200): void {
  const head = html`<link rel="stylesheet" href="${assets.Path("demo.css")}">
${page.head ?? html``}`;
  renderStarter(req, res, assets, { ...page, head }, status);
}
