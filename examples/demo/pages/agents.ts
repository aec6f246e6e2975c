/*
 * The demo's agent pages: tokens (mint, shown once, list, revoke), the
 * approval page an agent's write call points its person to, and the
 * person's activity (their audit stream, actors in audit form). Contract
 * attributes the tests read: data-agent-token (the new token, once, with
 * the starter's Copy button, data-copy), data-preview (the starter's
 * preview of what an approval's call would do) or data-arguments (the
 * starter's table of its arguments, for a tool without a preview),
 * data-agent-id (each listed token), data-agent-client-host (an OAuth grant's client host), data-agent-expires (its expiry, ISO 8601), data-approval (approve/decline
 * buttons), data-actor / data-type / data-via (each activity entry; via is the transport of a tool call, "" for /api/tools),
 * data-standing-id / data-standing-remaining / data-standing-expires (each token's standing approvals, listed beside it:
 * the record by its name, data-record-title, the fields by their labels, the team by its name, data-standing-context),
 * data-standing-form (the "approve calls like this" form of a pending approval), data-activity ("own" or "agents", the two activity lists), data-agent-text (the only elements holding text an agent
 * chose: a tool name as called, the arguments of an approval).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { APPROVAL_TTL, type AgentTokenInfo, type Approval, type StandingApproval, type ToolDef } from "../../../lib/agent/index.ts";
import type { Assets } from "../../../lib/assets/index.ts";
import type { Event } from "../../../lib/events/index.ts";
import { html, type SafeHTML } from "../../../lib/http/index.ts";
import { T, Tf } from "../../../lib/i18n/index.ts";
import { Icon } from "../../../lib/icons/index.ts";
import { COPY_SCRIPT, newToken } from "../../starter/pages/agents.ts";
import { approvable, callHTML, previewOf } from "../../starter/pages/approvals.ts";
import { standingForm, standingList } from "../../starter/pages/standing.ts";
import { render } from "./layout.ts";

/** What a mint attempt shows: the new token (once), or the refusal. */
export type MintResult = { token: string; name: string } | { error: string; status: number };

function when(date: Date): SafeHTML {
  // Isolated left to right: the date's digits and dashes keep their order on a right-to-left page.
  return html`<time dir="ltr" datetime="${date.toISOString()}">${date.toISOString().slice(0, 16).replace("T", " ")} UTC</time>`;
}

/** The person's live tokens, and beside each its live standing approvals; `teams` names their teams (id to name). */
export interface AgentsListed {
  tokens: readonly AgentTokenInfo[];
  standing: readonly StandingApproval[];
  teams: ReadonlyMap<string, string>;
}

function tokenList(req: IncomingMessage, { tokens, standing, teams }: AgentsListed): SafeHTML {
  if (tokens.length === 0) return html`<p class="muted">${T(req, "demo.agents.list_empty")}</p>`;
  return html`<ul class="agents">${tokens.map(
    (t) => html`<li data-agent-id="${t.ID}" data-agent-name="${t.Name}" data-agent-access="${t.Access}"><div>
  <strong>agent:${t.Name}</strong> · ${t.Access === "write" ? T(req, "demo.agents.write") : T(req, "demo.agents.read")}
  ${t.Client === undefined ? html`` : html`<span class="muted">${T(req, "demo.agents.client")}:</span> <span data-agent-text dir="auto">${t.Client.Name}</span> · <code dir="ltr" data-agent-client-host>${t.Client.Host}</code>`}
  <span class="muted">${T(req, "demo.agents.created")} ${when(t.CreatedAt)} · <span data-agent-expires="${t.ExpiresAt.toISOString()}">${T(req, "demo.agents.expires")} ${when(t.ExpiresAt)}</span> · ${t.LastUsedAt === undefined ? T(req, "demo.agents.never_used") : html`${T(req, "demo.agents.last_used")} ${when(t.LastUsedAt)}`}</span></div>
  <form class="inline" method="post" action="/account/agents/revoke"><input type="hidden" name="id" value="${t.ID}"><button class="danger" type="submit">${Icon("x")} ${T(req, "demo.agents.revoke")}</button></form>
  ${standingList(req, standing, t.ID, teams)}
</li>`,
  )}</ul>`;
}

/** `/account/agents`: the mint form, the token just minted (shown once) or the refusal, and the live tokens. */
export function agentsPage(req: IncomingMessage, res: ServerResponse, assets: Assets, listed: AgentsListed, minted?: MintResult): void {
  const notice =
    minted === undefined
      ? html``
      : "token" in minted
        ? html`<section class="card notice ok" role="status"><p>${T(req, "demo.agents.shown_once")}</p><p><strong>agent:${minted.name}</strong></p>${newToken(req, minted.token)}</section>`
        : html`<p class="card notice bad" role="alert" data-error>${minted.error}</p>`;
  render(
    req,
    res,
    assets,
    {
      title: T(req, "demo.agents.title"),
      scripts: minted !== undefined && "token" in minted ? [COPY_SCRIPT] : [],
      body: html`<h1>${Icon("key")} ${T(req, "demo.agents.title")}</h1>
${notice}
<section class="card">
  <p class="muted">${T(req, "demo.agents.intro")}</p>
  <form method="post" action="/account/agents">
    <label>${T(req, "demo.agents.name")} <input type="text" name="name" required maxlength="64" pattern="[a-z0-9][a-z0-9._\\-]{0,63}"></label>
    <fieldset><legend>${T(req, "demo.agents.access")}</legend>
      <label><input type="radio" name="access" value="read" checked> ${T(req, "demo.agents.read")}</label>
      <label><input type="radio" name="access" value="write"> ${T(req, "demo.agents.write")}</label>
    </fieldset>
    <button type="submit">${T(req, "demo.agents.mint")}</button>
  </form>
</section>
<section class="card">${tokenList(req, listed)}</section>
<p><a href="/account/activity">${T(req, "demo.activity.title")}</a> · <a href="/account">${T(req, "account.title")}</a></p>`,
    },
    minted !== undefined && "status" in minted ? minted.status : 200,
  );
}

/**
 * `/account/approvals/{id}`: the tool's confirm sentence, what the call would do (its preview, else the exact
 * arguments), approve (not for a stale call) and decline.
 */
export function approvalPage(
  req: IncomingMessage,
  res: ServerResponse,
  assets: Assets,
  approval: Approval,
  def: ToolDef | undefined,
  agent: string,
  refused?: string,
): void {
  const open = approval.Status === "pending" && refused === undefined;
  const preview = previewOf(req, def, approval);
  const outcome =
    approval.Status === "approved"
      ? html`<p class="card notice ok" role="status" data-outcome="approved">${Tf(req, "demo.approval.approved", { minutes: APPROVAL_TTL / 60000 })}</p>`
      : approval.Status === "declined"
        ? html`<p class="card notice" role="status" data-outcome="declined">${T(req, "demo.approval.declined")}</p>`
        : approval.Status === "voided"
          ? html`<p class="card notice" role="status" data-outcome="voided">${T(req, "demo.approval.voided")}</p>`
          : refused !== undefined || approval.Status !== "pending"
            ? html`<p class="card notice bad" role="alert" data-outcome="closed">${T(req, "demo.approval.closed")}</p>`
            : html``;
  render(req, res, assets, {
    title: T(req, "demo.approval.title"),
    bodyAttrs: { "data-approval-status": approval.Status },
    body: html`<h1>${Icon("alert")} ${T(req, "demo.approval.title")}</h1>
${outcome}
<section class="card">
  <p>${Tf(req, "demo.approval.asks", { agent, tool: approval.Tool })}</p>
  <p><strong data-confirm>${def?.Tool.Confirm ?? ""}</strong></p>
  <h2>${T(req, preview === undefined ? "demo.approval.arguments" : "demo.approval.preview")}</h2>
  ${callHTML(req, approval.Args, preview)}
  ${
    open
      ? html`<form class="row" method="post" action="/account/approvals/${approval.ID}">
    ${approvable(preview) ? html`<button type="submit" name="decision" value="approve" data-approval="approve">${Icon("check")} ${T(req, "demo.approval.approve")}</button>` : html``}
    <button class="secondary" type="submit" name="decision" value="decline" data-approval="decline">${Icon("x")} ${T(req, "demo.approval.decline")}</button>
  </form>`
      : html``
  }
  ${open && approvable(preview) ? standingForm(req, approval, def, preview) : html``}
</section>
<p><a href="/account/activity">${T(req, "demo.activity.title")}</a></p>`,
  });
}

/** A refused "approve calls like this" (400): the reason, naming the field, and the way back to the request. */
export function standingRefusedPage(req: IncomingMessage, res: ServerResponse, assets: Assets, reason: string, approvalID: string): void {
  const body = html`<h1>${Icon("alert")} ${T(req, "demo.approval.title")}</h1>
<p class="card notice bad" role="alert" data-error>${reason}</p>
<p><a href="/account/approvals/${approvalID}">${T(req, "demo.approval.title")}</a></p>`;
  render(req, res, assets, { title: T(req, "demo.approval.title"), body }, 400);
}

/** The audit event type of a tool call (lib/agent `ToolInvoker`). */
const TOOL_CALL = "tool.call";

/**
 * One audit event: its actor in audit form, what happened (a tool call is
 * "called the tool", any other event its type), the tool it names, and the
 * outcome. A tool name is shown as the caller sent it, up to 64 characters
 * an agent chose (an unknown tool's too), so only inside `<code
 * data-agent-text>`, after the demo's own words, never as them.
 */
function activityEntry(req: IncomingMessage, e: Event): SafeHTML {
  const tool = e.Data["tool"];
  const outcome = e.Data["outcome"];
  return html`<li
    data-seq="${e.Seq}"
    data-actor="${e.Actor}"
    data-type="${e.Type}"
    data-via="${typeof e.Data["via"] === "string" ? e.Data["via"] : ""}"
  >
    <code>${e.Actor}</code>
    ${e.Type === TOOL_CALL ? T(req, "demo.activity.called") : e.Type}
    ${typeof tool === "string" ? html`<code data-agent-text dir="auto">${tool}</code>` : ""}${typeof outcome === "string" ? html` → ${outcome}` : ""}
    <span class="muted">${when(e.At)}</span>
  </li>`;
}

function activityList(req: IncomingMessage, events: readonly Event[], section: string): SafeHTML {
  if (events.length === 0) return html`<p class="muted">${T(req, "demo.activity.empty")}</p>`;
  return html`<ol class="activity" data-activity="${section}">
    ${events.map((e) => activityEntry(req, e))}
  </ol>`;
}

/**
 * `/account/activity`: the head of the person's audit chain (sequence and
 * hash, `EventStore.head`: kept, it shows later that nothing before it was
 * rewritten), then their audit stream in two lists, newest
 * first: their own sign-ins and changes (actor `human`), then their
 * agents' calls, each read apart so no number of tool calls pushes a
 * sign-in or a token change off the page.
 */
export function activityPage(
  req: IncomingMessage,
  res: ServerResponse,
  assets: Assets,
  own: readonly Event[],
  agents: readonly Event[],
  head: { readonly Seq: number; readonly Hash: string },
): void {
  render(req, res, assets, {
    title: T(req, "demo.activity.title"),
    body: html`<h1>${T(req, "demo.activity.title")}</h1>
<p class="muted" data-audit-head-seq="${String(head.Seq)}" data-audit-head-hash="${head.Hash}">${T(req, "demo.activity.head")} <code dir="ltr">${String(head.Seq)} · ${head.Hash}</code></p>
<section class="card"><h2>${T(req, "demo.activity.yours")}</h2>${activityList(req, own, "own")}</section>
<section class="card"><h2>${T(req, "demo.activity.agents")}</h2>${activityList(req, agents, "agents")}</section>
<p><a href="/account/agents">${T(req, "demo.agents.title")}</a> · <a href="/account">${T(req, "account.title")}</a></p>`,
  });
}
