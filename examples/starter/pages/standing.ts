/*
 * Standing approvals (latch/agent, README "Standing approvals"): `standingForm`, the "approve calls like this" form an
 * approval page shows below Approve and Decline while its request is pending (`data-standing-form`; posts
 * `decision=standing` with `calls` and `hours`, pre-filled with the defaults, and the checkboxes `same_record` and
 * `same_fields`, value "1", checked, offered only when the call names a record or declares its fields (for a destructive
 * tool the fields are kept always, so `p[data-standing-fields-kept]` says so instead of a box), each naming
 * what it limits to: the record by its name, the fields by their labels, as the page's preview does), and
 * `standingList`, a token's standing approvals as the agent-token page lists them beside it (`data-standing-id`,
 * `data-standing-remaining`, `data-standing-expires` ISO 8601; the tool and limits in words: the record by the name
 * the approval page gave it (`data-record-title`), the fields by their labels, the team by its name; a revoke button
 * posting `id` to /account/agents/standing/revoke). A record's id or a team's id came from an agent's call: shown, when
 * no name is known, only inside `data-agent-text`.
 */
import type { IncomingMessage } from "node:http";
import {
  STANDING_DEFAULT_CALLS,
  STANDING_DEFAULT_TTL,
  STANDING_MAX_CALLS,
  STANDING_MAX_TTL,
  standingNames,
  type Approval,
  type CallPreview,
  type StandingApproval,
  type ToolDef,
} from "latch/agent";
import { html, type SafeHTML } from "latch/http";
import { T, Tf } from "latch/i18n";
import { Icon } from "latch/icons";

const HOUR = 60 * 60 * 1000;

// A record by its name, else by the id the agent's call gave (only inside `data-agent-text`).
function recordName(title: string | undefined, id: string): SafeHTML {
  return title === undefined
    ? html`<code data-agent-text dir="auto">${id}</code>`
    : html`<strong data-record-title dir="auto">${title}</strong>`;
}

// Fields by their labels (a tool's own argument names where its preview gives none; a tool refuses any other), or "none".
function fieldNames(req: IncomingMessage, labels: readonly string[]): SafeHTML {
  if (labels.length === 0) return html`${T(req, "starter.standing.no_fields")}`;
  return html`${labels.map((label, i) => html`${i === 0 ? "" : ", "}<span dir="auto">${label}</span>`)}`;
}

/**
 * The form on `approval`'s page while it waits; nothing once it is decided or lapsed. Given the tool (`def`), the
 * checkboxes are offered only where they limit something, naming the record and the fields as `preview` (the page's)
 * does; without it, both, unnamed (the server ignores "same record" for a call naming none).
 */
export function standingForm(req: IncomingMessage, approval: Approval, def?: ToolDef, preview?: CallPreview): SafeHTML {
  if (approval.Status !== "pending" || approval.ExpiresAt.getTime() <= Date.now()) return html``;
  // undefined: the tool is unknown (both boxes, unnamed); null: it declares no `Target`, so a box would limit nothing.
  const target = def === undefined ? undefined : (def.Target?.(new Map(Object.entries(approval.Args))) ?? null);
  const names = target === undefined || target === null ? undefined : standingNames(target, preview);
  const box = (name: string, label: string, what: SafeHTML): SafeHTML =>
    html`<label><input type="checkbox" name="${name}" value="1" checked> ${T(req, label)} ${what}</label>`;
  const sameRecord =
    target === undefined
      ? box("same_record", "starter.standing.same_record", html``)
      : target === null || target.Record === undefined
        ? html``
        : box("same_record", "starter.standing.same_record", recordName(names?.Title, target.Record));
  return html`<form class="standing" method="post" action="/account/approvals/${approval.ID}" data-standing-form>
  <h2>${T(req, "starter.standing.title")}</h2>
  <p class="muted">${T(req, "starter.standing.intro")}</p>
  <label for="standing-calls">${Tf(req, "starter.standing.calls", { max: STANDING_MAX_CALLS })}</label>
  <input id="standing-calls" name="calls" type="number" min="1" max="${STANDING_MAX_CALLS}" value="${STANDING_DEFAULT_CALLS}" required>
  <label for="standing-hours">${Tf(req, "starter.standing.hours", { max: STANDING_MAX_TTL / HOUR })}</label>
  <input id="standing-hours" name="hours" type="number" min="1" max="${STANDING_MAX_TTL / HOUR}" value="${STANDING_DEFAULT_TTL / HOUR}" required>
  ${sameRecord}
  ${target === null ? html`` : sameFields(req, def, names === undefined ? html`` : fieldNames(req, names.FieldLabels), box)}
  <p><button type="submit" name="decision" value="standing" data-approval="standing">${Icon("check")} ${T(req, "starter.standing.submit")}</button></p>
</form>`;
}

// "Only the fields this call changes": a box, or for a destructive tool a statement (latch/agent keeps its fields always).
function sameFields(
  req: IncomingMessage,
  def: ToolDef | undefined,
  what: SafeHTML,
  box: (name: string, label: string, what: SafeHTML) => SafeHTML,
): SafeHTML {
  if (def?.Tool.Destructive !== true) return box("same_fields", "starter.standing.same_fields", what);
  return html`<p data-standing-fields-kept>${T(req, "starter.standing.same_fields")} ${what}</p>`;
}

function limits(req: IncomingMessage, s: StandingApproval, contexts: ReadonlyMap<string, string>): SafeHTML {
  const record =
    s.Record === undefined
      ? T(req, "starter.standing.any_record")
      : html`${T(req, "starter.standing.one_record")} ${recordName(s.Title, s.Record)}`;
  const fields =
    s.Fields === undefined
      ? T(req, "starter.standing.any_fields")
      : html`${T(req, "starter.standing.some_fields")} ${fieldNames(req, s.FieldLabels ?? s.Fields)}`;
  const team = contexts.get(s.Context);
  const context =
    s.Context === ""
      ? html``
      : html` · ${T(req, "starter.standing.context")} ${team === undefined ? html`<code data-agent-text dir="auto">${s.Context}</code>` : html`<strong dir="auto" data-standing-context>${team}</strong>`}`;
  return html`${record} · ${fields}${context}`;
}

/**
 * `standing`'s entries of token `tokenID`, each with its revoke button; nothing when it has none. `contexts` names
 * the contexts the person may see (a team's id to its name); another shows as its id.
 */
export function standingList(
  req: IncomingMessage,
  standing: readonly StandingApproval[],
  tokenID: string,
  contexts: ReadonlyMap<string, string> = new Map(),
): SafeHTML {
  const mine = standing.filter((s) => s.TokenID === tokenID);
  if (mine.length === 0) return html``;
  return html`<ul class="standing">${mine.map(
    (
      s,
    ) => html`<li data-standing-id="${s.ID}" data-standing-remaining="${s.Remaining}" data-standing-expires="${s.ExpiresAt.toISOString()}">
<div>${Tf(req, "starter.standing.listed", { tool: s.Tool, remaining: s.Remaining })} · ${T(req, "starter.standing.until")}
  <time dir="ltr" datetime="${s.ExpiresAt.toISOString()}">${s.ExpiresAt.toISOString().slice(0, 16).replace("T", " ")} UTC</time>
  <div class="muted">${limits(req, s, contexts)}</div></div>
  <form class="inline" method="post" action="/account/agents/standing/revoke"><input type="hidden" name="id" value="${s.ID}"><button class="secondary" type="submit">${Icon("x")} ${T(req, "starter.standing.revoke")}</button></form>
</li>`,
  )}</ul>`;
}
