/*
 * The approval page (behind RequireFreshSession): the write calls agents
 * ask the person to approve. `/account/approvals/{id}` (the link the agent
 * was given) shows one, and its outcome once decided; the list of every
 * request awaiting a decision is approval-list.ts, with these cards. Each request
 * (`data-approval-id`, `data-approval-status`) names the agent and the
 * tool, says the tool's confirm sentence, and shows the exact arguments
 * as a table (`data-arguments`: name, value, type, long values wrapped);
 * while pending, Approve and Decline (`data-approval`) post the decision.
 * Text an agent chose (the argument values) is only inside
 * `data-agent-text` cells, never read as the page's own words.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { APPROVAL_TTL, type Approval } from "latch/agent";
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

function outcome(req: IncomingMessage, status: Approval["Status"]): SafeHTML {
  if (status === "approved")
    return html`<p class="notice ok" role="status" data-outcome="approved">${Tf(req, "starter.approvals.approved", { minutes: APPROVAL_TTL / 60_000 })}</p>`;
  if (status === "declined")
    return html`<p class="notice" role="status" data-outcome="declined">${T(req, "starter.approvals.declined")}</p>`;
  return html`<p class="notice bad" role="status" data-outcome="closed">${T(req, "starter.approvals.closed")}</p>`;
}

/** One request's card: who asks, the tool, its confirm sentence, the arguments; approve and decline while it waits. */
export function request(req: IncomingMessage, { approval, agent, confirm }: ApprovalView, now: Date): SafeHTML {
  const open = approval.Status === "pending" && approval.ExpiresAt > now;
  return html`<section class="card" data-approval-id="${approval.ID}" data-approval-status="${open || approval.Status !== "pending" ? approval.Status : "lapsed"}">
  <dl class="facts">
    <dt>${T(req, "starter.approvals.agent")}</dt><dd>${agent}</dd>
    <dt>${T(req, "starter.approvals.tool")}</dt><dd><code>${approval.Tool}</code></dd>
  </dl>
  ${confirm === "" ? html`` : html`<p><strong dir="auto" data-confirm>${confirm}</strong></p>`}
  ${argumentsTable(req, approval.Args)}
  ${
    open
      ? html`<form class="inline" method="post" action="/account/approvals/${approval.ID}">
    <button type="submit" name="decision" value="approve" data-approval="approve">${Icon("check")} ${T(req, "starter.approvals.approve")}</button>
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
