/*
 * Standing approvals (latch/agent, README "Standing approvals"): `standingForm`, the "approve calls like this" form an
 * approval page shows below Approve and Decline while its request is pending (`data-standing-form`; posts
 * `decision=standing` with `calls` and `hours`, pre-filled with the defaults, and the checkboxes `same_record` and
 * `same_fields`, value "1", checked, offered only when the call names a record or declares its fields), and
 * `standingList`, a token's standing approvals as the agent-token page lists them beside it (`data-standing-id`,
 * `data-standing-remaining`, `data-standing-expires` ISO 8601; the tool and limits in words; a revoke button posting
 * `id` to /account/agents/standing/revoke). A record's id came from an agent's call: only inside `data-agent-text`.
 */
import type { IncomingMessage } from "node:http";
import {
  STANDING_DEFAULT_CALLS,
  STANDING_DEFAULT_TTL,
  STANDING_MAX_CALLS,
  STANDING_MAX_TTL,
  type Approval,
  type StandingApproval,
  type ToolDef,
} from "latch/agent";
import { html, type SafeHTML } from "latch/http";
import { T, Tf } from "latch/i18n";
import { Icon } from "latch/icons";

const HOUR = 60 * 60 * 1000;

/**
 * The form on `approval`'s page while it waits; nothing once it is decided or lapsed. Given the tool (`def`), the
 * checkboxes are offered only where they limit something; without it, both (the server ignores "same record" for a call
 * naming none).
 */
export function standingForm(req: IncomingMessage, approval: Approval, def?: ToolDef): SafeHTML {
  if (approval.Status !== "pending" || approval.ExpiresAt.getTime() <= Date.now()) return html``;
  const target = def === undefined ? { Record: "" } : def.Target?.(new Map(Object.entries(approval.Args)));
  const box = (name: string, label: string): SafeHTML =>
    html`<label><input type="checkbox" name="${name}" value="1" checked> ${T(req, label)}</label>`;
  return html`<form class="standing" method="post" action="/account/approvals/${approval.ID}" data-standing-form>
  <h2>${T(req, "starter.standing.title")}</h2>
  <p class="muted">${T(req, "starter.standing.intro")}</p>
  <label for="standing-calls">${Tf(req, "starter.standing.calls", { max: STANDING_MAX_CALLS })}</label>
  <input id="standing-calls" name="calls" type="number" min="1" max="${STANDING_MAX_CALLS}" value="${STANDING_DEFAULT_CALLS}" required>
  <label for="standing-hours">${Tf(req, "starter.standing.hours", { max: STANDING_MAX_TTL / HOUR })}</label>
  <input id="standing-hours" name="hours" type="number" min="1" max="${STANDING_MAX_TTL / HOUR}" value="${STANDING_DEFAULT_TTL / HOUR}" required>
  ${target?.Record === undefined ? html`` : box("same_record", "starter.standing.same_record")}
  ${target === undefined ? html`` : box("same_fields", "starter.standing.same_fields")}
  <p><button type="submit" name="decision" value="standing" data-approval="standing">${Icon("check")} ${T(req, "starter.standing.submit")}</button></p>
</form>`;
}

function limits(req: IncomingMessage, s: StandingApproval): SafeHTML {
  const record =
    s.Record === undefined
      ? T(req, "starter.standing.any_record")
      : html`${T(req, "starter.standing.one_record")} <code data-agent-text dir="auto">${s.Record}</code>`;
  const fields =
    s.Fields === undefined ? T(req, "starter.standing.any_fields") : html`${T(req, "starter.standing.some_fields")} ${s.Fields.join(", ")}`;
  const context =
    s.Context === "" ? html`` : html` · ${T(req, "starter.standing.context")} <code data-agent-text dir="auto">${s.Context}</code>`;
  return html`${record} · ${fields}${context}`;
}

/** `standing`'s entries of token `tokenID`, each with its revoke button; nothing when it has none. */
export function standingList(req: IncomingMessage, standing: readonly StandingApproval[], tokenID: string): SafeHTML {
  const mine = standing.filter((s) => s.TokenID === tokenID);
  if (mine.length === 0) return html``;
  return html`<ul class="standing">${mine.map(
    (
      s,
    ) => html`<li data-standing-id="${s.ID}" data-standing-remaining="${s.Remaining}" data-standing-expires="${s.ExpiresAt.toISOString()}">
  ${Tf(req, "starter.standing.listed", { tool: s.Tool, remaining: s.Remaining })} · ${T(req, "starter.standing.until")}
  <time datetime="${s.ExpiresAt.toISOString()}">${s.ExpiresAt.toISOString().slice(0, 16).replace("T", " ")} UTC</time>
  <span class="muted">${limits(req, s)}</span>
  <form class="inline" method="post" action="/account/agents/standing/revoke"><input type="hidden" name="id" value="${s.ID}"><button class="secondary" type="submit">${Icon("x")} ${T(req, "starter.standing.revoke")}</button></form>
</li>`,
  )}</ul>`;
}
