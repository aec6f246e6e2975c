/*
 * The agent-token page (behind RequireFreshSession): a form to mint a
 * token for a named agent, read or read-and-write (a fieldset of two
 * radios), the new token shown once (`data-agent-token`, with a Copy
 * button, `data-copy`, shown by static/copy.js) or the refusal
 * (`data-error`), the address an MCP client connects to
 * (`data-mcp-url`), and the person's tokens (`data-agent-id`, with
 * `data-agent-access`), each with its access, its expiry ("expires on …",
 * `data-agent-expires`) and a revoke button; an OAuth grant also names
 * its client (the client's own words, in `data-agent-text`) and host
 * (`data-agent-client-host`).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AgentTokenInfo } from "latch/agent";
import type { Assets } from "latch/assets";
import { html, type SafeHTML } from "latch/http";
import { T } from "latch/i18n";
import { Icon } from "latch/icons";
import { render, starterNav } from "./layout.ts";

/**
 * A new token, shown once: the token as text (`data-agent-token`, id
 * `agent-token`, selectable), and a Copy button (`data-copy`) that
 * `static/copy.js` shows and wires; pass `COPY_SCRIPT` in the page's
 * scripts. Without script the button stays hidden.
 */
export function newToken(req: IncomingMessage, token: string): SafeHTML {
  return html`<p class="token"><code id="agent-token" data-agent-token="${token}">${token}</code> <button type="button" class="secondary" data-copy="agent-token" data-copied="${T(req, "starter.agents.copied")}" hidden>${T(req, "starter.agents.copy")}</button></p>`;
}

/** The script of the Copy button, an asset of the starter's static files. */
export const COPY_SCRIPT = "copy.js";

/** What a mint shows: the new token, this once, or why it was refused. */
export type MintResult = { token: string } | { error: string; status: number };

function day(date: Date): SafeHTML {
  return html`<time datetime="${date.toISOString()}">${date.toISOString().slice(0, 10)}</time>`;
}

function tokenList(req: IncomingMessage, tokens: readonly AgentTokenInfo[]): SafeHTML {
  if (tokens.length === 0) return html`<p class="muted">${T(req, "starter.agents.empty")}</p>`;
  return html`<ul class="list">${tokens.map(
    (t) => html`<li data-agent-id="${t.ID}" data-agent-access="${t.Access}">
  <span class="who">
    <span>${Icon("key")} agent:${t.Name}</span>
    ${t.Client === undefined ? html`` : html`<span class="muted">${T(req, "starter.agents.client")}: <span data-agent-text dir="auto">${t.Client.Name}</span> · <code dir="ltr" data-agent-client-host>${t.Client.Host}</code></span>`}
    <span class="muted">${t.Access === "write" ? T(req, "starter.agents.access_write") : T(req, "starter.agents.access_read")}</span>
    <span class="muted" data-agent-expires="${t.ExpiresAt.toISOString()}">${T(req, "starter.agents.expires")} ${day(t.ExpiresAt)}</span>
  </span>
  <form class="inline" method="post" action="/account/agents/revoke">
    <input type="hidden" name="id" value="${t.ID}">
    <button class="danger" type="submit">${Icon("x")} ${T(req, "starter.agents.revoke")}</button>
  </form>
</li>`,
  )}</ul>`;
}

/**
 * Renders the page; `mcpURL` is the application's MCP endpoint, `minted`
 * a token just created (shown this once) or a refused mint (its status).
 */
export function agentsPage(
  req: IncomingMessage,
  res: ServerResponse,
  assets: Assets,
  tokens: readonly AgentTokenInfo[],
  mcpURL: string,
  minted?: MintResult,
): void {
  const notice =
    minted === undefined
      ? html``
      : "token" in minted
        ? html`<section class="notice ok" role="status"><p>${T(req, "starter.agents.shown_once")}</p>${newToken(req, minted.token)}</section>`
        : html`<p class="notice bad" role="alert" data-error>${minted.error}</p>`;
  render(
    req,
    res,
    assets,
    {
      nav: starterNav(req),
      title: T(req, "starter.agents.title"),
      scripts: minted !== undefined && "token" in minted ? [COPY_SCRIPT] : [],
      body: html`<h1>${T(req, "starter.agents.title")}</h1>
${notice}
<form class="card" method="post" action="/account/agents">
  <p class="muted">${T(req, "starter.agents.intro")}</p>
  <label for="agent-name">${T(req, "starter.agents.name")}</label>
  <input id="agent-name" name="name" type="text" pattern="[a-z0-9][a-z0-9._\\-]{0,63}" required>
  <fieldset class="choice">
    <legend>${T(req, "starter.agents.access")}</legend>
    <label><input type="radio" name="access" value="read" checked> ${T(req, "starter.agents.read")}</label>
    <label><input type="radio" name="access" value="write"> ${T(req, "starter.agents.write")}</label>
  </fieldset>
  <p><button type="submit">${Icon("key")} ${T(req, "starter.agents.mint")}</button></p>
</form>
<section class="card">
  <p>${T(req, "starter.agents.connect")}</p>
  <p><code data-mcp-url>${mcpURL}</code></p>
</section>
<section class="card">${tokenList(req, tokens)}</section>
<p><a href="/account/approvals">${T(req, "starter.approvals.title")}</a> · <a href="/account">${T(req, "jobs.continue")}</a></p>`,
    },
    minted !== undefined && "status" in minted ? minted.status : 200,
  );
}
