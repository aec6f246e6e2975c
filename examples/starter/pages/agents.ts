/*
 * The agent-token page (behind RequireFreshSession): a form to mint a
 * read-only token for a named agent, the new token shown once
 * (`data-agent-token`), and the person's tokens (`data-agent-id`), each
 * with its expiry ("expires on …", `data-agent-expires`).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AgentTokenInfo } from "latch/agent";
import type { Assets } from "latch/assets";
import { html } from "latch/http";
import { T } from "latch/i18n";
import { Icon } from "latch/icons";
import { render } from "./layout.ts";

/** Renders the page; `minted` is a token just created, shown this once. */
export function agentsPage(
  req: IncomingMessage,
  res: ServerResponse,
  assets: Assets,
  tokens: readonly AgentTokenInfo[],
  minted?: string,
): void {
  render(req, res, assets, {
    title: T(req, "starter.agents.title"),
    body: html`<h1>${T(req, "starter.agents.title")}</h1>
${minted === undefined ? html`` : html`<section class="notice ok" role="status"><p>${T(req, "starter.agents.shown_once")}</p><p><code data-agent-token="${minted}">${minted}</code></p></section>`}
<form class="card" method="post" action="/account/agents">
  <p class="muted">${T(req, "starter.agents.intro")}</p>
  <label for="agent-name">${T(req, "starter.agents.name")}</label>
  <input id="agent-name" name="name" type="text" pattern="[a-z0-9][a-z0-9._\\-]{0,63}" required>
  <p><button type="submit">${Icon("key")} ${T(req, "starter.agents.mint")}</button></p>
</form>
<ul class="list">${tokens.map((t) => html`<li data-agent-id="${t.ID}">${Icon("key")} agent:${t.Name} <span class="muted" data-agent-expires="${t.ExpiresAt.toISOString()}">${T(req, "starter.agents.expires")} <time datetime="${t.ExpiresAt.toISOString()}">${t.ExpiresAt.toISOString().slice(0, 10)}</time></span></li>`)}</ul>
<p><a href="/account">${T(req, "jobs.continue")}</a></p>`,
  });
}
