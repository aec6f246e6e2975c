/*
 * The approvals list (`GET /account/approvals`, behind RequireFreshSession): every call awaiting the person, each
 * request's card (approvals.ts) with a checkbox (`data-approval-select`, field `id`) and a link to its own page; one
 * form (`POST /account/approvals`, field `decision`, buttons `data-batch="approve|decline"`) decides the checked ones
 * at once. After a batch the page says how many were approved or declined (`data-batch-outcome`, `data-batch-done`)
 * and which could not be (`data-batch-refused`: "decided", "expired", "unknown" or "stale"). The demo and the guide's
 * application render it.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { APPROVAL_TTL } from "latch/agent";
import type { Assets } from "latch/assets";
import { html, type SafeHTML } from "latch/http";
import { T, Tf } from "latch/i18n";
import { Icon } from "latch/icons";
import { request, type ApprovalView } from "./approvals.ts";
import type { Shell } from "./teams.ts";

/** The id of the batch form: each card's checkbox belongs to it (`form=`), so no form sits inside another. */
const BATCH_FORM = "approvals-batch";

/** What a batch decision did, for the page after it; or the refusal of the whole post (`error`). */
export type BatchResult =
  | {
      decision: "approve" | "decline";
      done: number;
      refused: readonly { label: string; reason: "decided" | "expired" | "unknown" | "stale" }[];
    }
  | { error: string };

function batchNotice(req: IncomingMessage, result: BatchResult | undefined): SafeHTML {
  if (result === undefined) return html``;
  if ("error" in result) return html`<p class="card notice bad" role="alert" data-error>${result.error}</p>`;
  const done =
    result.decision === "approve"
      ? Tf(req, "starter.approvals.batch_approved", { count: result.done, minutes: APPROVAL_TTL / 60_000 })
      : Tf(req, "starter.approvals.batch_declined", { count: result.done });
  const refused =
    result.refused.length === 0
      ? html``
      : html`<p>${T(req, "starter.approvals.batch_refused")}</p><ul>${result.refused.map(
          (r) =>
            html`<li data-batch-refused="${r.reason}"><code data-agent-text dir="auto">${r.label}</code>: ${T(req, `starter.approvals.refused_${r.reason}`)}</li>`,
        )}</ul>`;
  return html`<section class="card notice ${result.refused.length === 0 ? "ok" : "bad"}" role="status" data-batch-outcome="${result.decision}" data-batch-done="${String(result.done)}">
  <p>${done}</p>${refused}
</section>`;
}

function item(req: IncomingMessage, view: ApprovalView, now: Date): SafeHTML {
  const { approval, agent } = view;
  return html`<li data-approval-item="${approval.ID}">
  <p class="select"><label><input type="checkbox" name="id" value="${approval.ID}" form="${BATCH_FORM}" data-approval-select> ${Tf(req, "starter.approvals.select", { agent, tool: approval.Tool })}</label>
  <a href="/account/approvals/${approval.ID}">${T(req, "starter.approvals.open")}</a></p>
  ${request(req, view, now)}
</li>`;
}

/** `/account/approvals`: the waiting requests and the batch form, after a batch what it did, in `shell`. */
export function approvalListPage(
  req: IncomingMessage,
  res: ServerResponse,
  assets: Assets,
  shell: Shell,
  views: readonly ApprovalView[],
  now: Date,
  result?: BatchResult,
): void {
  const list =
    views.length === 0
      ? html`<p class="card muted" data-approvals-empty>${T(req, "starter.approvals.empty")}</p>`
      : html`<ul class="approval-list">${views.map((view) => item(req, view, now))}</ul>
<form id="${BATCH_FORM}" class="card" method="post" action="/account/approvals">
  <p>${T(req, "starter.approvals.batch_intro")}</p>
  <button type="submit" name="decision" value="approve" data-batch="approve">${Icon("check")} ${T(req, "starter.approvals.batch_approve")}</button>
  <button class="secondary" type="submit" name="decision" value="decline" data-batch="decline">${Icon("x")} ${T(req, "starter.approvals.batch_decline")}</button>
</form>`;
  shell(
    req,
    res,
    assets,
    {
      title: T(req, "starter.approvals.title"),
      body: html`<h1>${Icon("alert")} ${T(req, "starter.approvals.title")}</h1>
${batchNotice(req, result)}
<p class="muted">${T(req, "starter.approvals.intro")}</p>
${list}`,
    },
    result !== undefined && "error" in result ? 400 : 200,
  );
}
