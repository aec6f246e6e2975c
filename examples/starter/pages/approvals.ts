/*
 * The approval page (behind RequireFreshSession): the write calls agents
 * ask the person to approve. `/account/approvals/{id}` (the link the agent
 * was given) shows one, and its outcome once decided; the list of every
 * request awaiting a decision is approval-list.ts, with these cards. Each request
 * (`data-approval-id`, `data-approval-status`) names the agent and the
 * tool, says the tool's confirm sentence, and shows what the call would
 * do: its tool's preview (`data-preview`, a resource's write: the record by
 * name, before → after by label, a stale version with nothing to approve),
 * else the exact arguments as a table (`data-arguments`: name, value,
 * type, long values wrapped); while pending, Approve and Decline
 * (`data-approval`) post the decision. Text an agent chose (the argument
 * values, a preview's new values) is only inside `data-agent-text`
 * elements, never read as the page's own words.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { APPROVAL_TTL, type Approval, type CallPreview, type ToolDef } from "latch/agent";
import type { Assets } from "latch/assets";
import { html, type SafeHTML } from "latch/http";
import { T, Tf } from "latch/i18n";
import { Icon } from "latch/icons";
import { render, starterNav } from "./layout.ts";

/** One request as the page shows it. */
export interface ApprovalView {
  approval: Approval;
  /** Who asks, in audit form: `agent:<token name>`. */
  agent: string;
  /** The tool's `Confirm` sentence ("" when it has none). */
  confirm: string;
  /** What the call would do (`previewOf`); without it, the arguments table. */
  preview?: CallPreview | undefined;
}

/** An argument's type in the person's words (a tool's arguments are text, numbers or yes/no). */
function typeName(req: IncomingMessage, value: string | number | boolean): string {
  if (typeof value === "number") return T(req, "starter.approvals.type_number");
  if (typeof value === "boolean") return T(req, "starter.approvals.type_boolean");
  return T(req, "starter.approvals.type_string");
}

/** The arguments of a request as a table (name, value, type), long values wrapped; the demo's approval page shows it too. */
export function argumentsTable(req: IncomingMessage, args: Approval["Args"]): SafeHTML {
  const rows = Object.entries(args);
  if (rows.length === 0) return html`<p class="muted" data-arguments>${T(req, "starter.approvals.no_arguments")}</p>`;
  return html`<table class="arguments" data-arguments>
  <thead><tr><th scope="col">${T(req, "starter.approvals.name")}</th><th scope="col">${T(req, "starter.approvals.value")}</th><th scope="col">${T(req, "starter.approvals.type")}</th></tr></thead>
  <tbody>${rows.map(
    ([name, value]) =>
      html`<tr data-argument="${name}"><th scope="row"><code data-agent-text dir="auto">${name}</code></th><td class="value" data-agent-text dir="auto">${String(value)}</td><td class="muted">${typeName(req, value)}</td></tr>`,
  )}</tbody>
</table>`;
}

/**
 * Returns what `approval`'s call would do, by its tool's `Preview`, for the person it waits for in `req`'s locale:
 * while it is open or approved (once spent, the record shows the call's own change); undefined when the tool has none.
 */
export function previewOf(req: IncomingMessage, def: ToolDef | undefined, approval: Approval): CallPreview | undefined {
  if (approval.Status !== "pending" && approval.Status !== "approved") return undefined;
  return def?.Preview?.({ Args: new Map(Object.entries(approval.Args)), Subject: approval.Subject }, req);
}

/** Whether the person may approve a call with `preview`: not a stale one, which its tool would refuse. */
export function approvable(preview: CallPreview | undefined): boolean {
  return preview?.Stale !== true;
}

// A value as shown: the empty value in the page's own words; anything else isolated in its writer's direction, inside
// a cell aligned with the page's; an agent's value only inside `data-agent-text`.
function valueHTML(req: IncomingMessage, value: string, agent = false): SafeHTML {
  if (value === "") return html`<span class="muted">${T(req, "starter.approvals.empty_value")}</span>`;
  return html`<span${agent ? html` data-agent-text` : html``} dir="auto">${value}</span>`;
}

function fieldsTable(req: IncomingMessage, preview: CallPreview): SafeHTML {
  const head = (cells: string[]): SafeHTML => html`<thead><tr>${cells.map((k) => html`<th scope="col">${T(req, k)}</th>`)}</tr></thead>`;
  if (preview.Kind !== "update") {
    // A create's values are the agent's; a delete's, the record's own.
    return html`<table class="preview">${head(["starter.approvals.field", "starter.approvals.value"])}<tbody>${preview.Fields.map(
      (f) =>
        html`<tr data-value="${f.Field}"><th scope="row">${f.Label}</th><td>${valueHTML(req, f.Value, preview.Kind === "create")}</td></tr>`,
    )}</tbody></table>`;
  }
  if (preview.Fields.length === 0) return html`<p class="muted" data-no-change>${T(req, "starter.approvals.no_change")}</p>`;
  return html`<table class="preview">${head(["starter.approvals.field", "starter.approvals.before", "starter.approvals.after"])}<tbody>${preview.Fields.map(
    (f) =>
      html`<tr data-change="${f.Field}"><th scope="row">${f.Label}</th><td data-before>${valueHTML(req, f.Before ?? "")}</td><td data-after>${valueHTML(req, f.Value, true)}</td></tr>`,
  )}</tbody></table>`;
}

/**
 * What a request would do: its tool's preview (`data-preview`), else the arguments table. The demo's approval page
 * shows it too.
 */
export function callHTML(req: IncomingMessage, args: Approval["Args"], preview: CallPreview | undefined): SafeHTML {
  if (preview === undefined) return argumentsTable(req, args);
  return html`<div class="preview" data-preview="${preview.Kind}">
  ${preview.Stale ? html`<p class="notice bad" role="alert" data-outcome="stale">${T(req, "starter.approvals.stale")}</p>` : html``}
  <p>${T(req, `starter.approvals.preview_${preview.Kind}`)}${preview.Title === undefined ? html`` : html` <strong data-record-title dir="auto">${preview.Title}</strong>`}</p>
  ${fieldsTable(req, preview)}
  ${
    preview.Unchanged.length === 0
      ? html``
      : html`<details data-unchanged><summary>${T(req, "starter.approvals.unchanged")}</summary><dl class="facts">${preview.Unchanged.map(
          (f) => html`<dt>${f.Label}</dt><dd>${valueHTML(req, f.Value)}</dd>`,
        )}</dl></details>`
  }
  ${
    preview.ReferredBy.length === 0
      ? html``
      : html`<ul class="referrers">${preview.ReferredBy.map(
          (r) =>
            html`<li data-referred-by="${r.Resource}" data-on-delete="${r.OnDelete}">${Tf(req, `starter.approvals.referred_${r.OnDelete}`, { label: r.Label, count: r.Count })}</li>`,
        )}</ul>`
  }
</div>`;
}

function outcome(req: IncomingMessage, status: Approval["Status"]): SafeHTML {
  if (status === "approved")
    return html`<p class="notice ok" role="status" data-outcome="approved">${Tf(req, "starter.approvals.approved", { minutes: APPROVAL_TTL / 60_000 })}</p>`;
  if (status === "declined")
    return html`<p class="notice" role="status" data-outcome="declined">${T(req, "starter.approvals.declined")}</p>`;
  return html`<p class="notice bad" role="status" data-outcome="closed">${T(req, "starter.approvals.closed")}</p>`;
}

/** One request's card: who asks, the tool, its confirm sentence, what the call would do; approve and decline while it waits. */
export function request(req: IncomingMessage, { approval, agent, confirm, preview }: ApprovalView, now: Date): SafeHTML {
  const open = approval.Status === "pending" && approval.ExpiresAt > now;
  return html`<section class="card" data-approval-id="${approval.ID}" data-approval-status="${open || approval.Status !== "pending" ? approval.Status : "lapsed"}">
  <dl class="facts">
    <dt>${T(req, "starter.approvals.agent")}</dt><dd>${agent}</dd>
    <dt>${T(req, "starter.approvals.tool")}</dt><dd><code>${approval.Tool}</code></dd>
  </dl>
  ${confirm === "" ? html`` : html`<p><strong dir="auto" data-confirm>${confirm}</strong></p>`}
  ${callHTML(req, approval.Args, preview)}
  ${
    open
      ? html`<form class="inline" method="post" action="/account/approvals/${approval.ID}">
    ${approvable(preview) ? html`<button type="submit" name="decision" value="approve" data-approval="approve">${Icon("check")} ${T(req, "starter.approvals.approve")}</button>` : html``}
    <button class="secondary" type="submit" name="decision" value="decline" data-approval="decline">${Icon("x")} ${T(req, "starter.approvals.decline")}</button>
  </form>`
      : outcome(req, approval.Status)
  }
</section>`;
}

/** Renders `views` (the one request a link named) at `now`. */
export function approvalsPage(req: IncomingMessage, res: ServerResponse, assets: Assets, views: readonly ApprovalView[], now: Date): void {
  render(req, res, assets, {
    nav: starterNav(req),
    title: T(req, "starter.approvals.title"),
    body: html`<h1>${Icon("alert")} ${T(req, "starter.approvals.title")}</h1>
<p class="muted">${T(req, "starter.approvals.intro")}</p>
${views.length === 0 ? html`<p class="card muted" data-approvals-empty>${T(req, "starter.approvals.empty")}</p>` : views.map((view) => request(req, view, now))}
<p><a href="/account/approvals">${T(req, "starter.approvals.all")}</a> · <a href="/account/agents">${T(req, "starter.agents.title")}</a></p>`,
  });
}
