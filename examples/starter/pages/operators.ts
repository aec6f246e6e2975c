/*
 * The operators' pages (lib/operators README): `peoplePage` finds people by
 * address prefix (query `q`, paged by `after`), `personPage` shows what the
 * README lists of one person (`?address=`), never their records, with the
 * action forms: suspend and reactivate (field `reason`), end sessions and
 * grants, reset passkeys and recovery codes (each with the hidden field
 * `address`), the head of their audit chain and a link to export their
 * audit stream as JSON Lines; the people page ends with the incident form, ending everyone's
 * sessions and grants once the host it shows is typed (field `confirm`). Tables and columns are named as latch stores them: an
 * operator's page is a tool, and the names are what the docs list.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Assets } from "latch/assets";
import { html, queryParams, type SafeHTML } from "latch/http";
import { T, Tf } from "latch/i18n";
import { Icon } from "latch/icons";
import type { Operators } from "latch/operators";

/** What `Operators.find` and `Operators.view` answer. */
type PeoplePage = ReturnType<Operators["find"]>;
type PersonView = ReturnType<Operators["view"]>;

/** The longest reason lib/operators accepts (its README, `MAX_REASON`). */
const MAX_REASON = 500;
import type { Shell } from "./teams.ts";

/** The `done` outcomes the actions redirect with. */
export const OPERATOR_OUTCOMES: readonly string[] = ["suspended", "reactivated", "not_suspended", "access_ended", "passkeys_reset"];

const time = (ms: unknown): string => (typeof ms === "number" ? new Date(ms).toISOString().slice(0, 16).replace("T", " ") : "");

// The incident action (README "Actions"): typing `phrase` confirms it.
function endEveryone(req: IncomingMessage, phrase: string): SafeHTML {
  const query = queryParams(req);
  const done =
    query.get("done") === "everyone_ended"
      ? html`<p class="notice ok" role="status" data-outcome="everyone_ended">${Icon("check")} ${Tf(req, "starter.operators.done.everyone_ended", { sessions: query.get("sessions") ?? "0", access: query.get("access") ?? "0" })}</p>`
      : html``;
  return html`<section class="card" data-operators-incident>
  <h2>${T(req, "starter.operators.end_everyone")}</h2>
  ${done}
  <form method="post" action="${(req.url ?? "").split("?")[0] ?? ""}/end-everyone" data-operators-action="end_everyone">
    <label for="operators-confirm">${Tf(req, "starter.operators.end_everyone_confirm", { phrase })}</label>
    <input id="operators-confirm" name="confirm" type="text" autocomplete="off" required dir="ltr" data-phrase="${phrase}">
    <p><button type="submit" class="danger">${T(req, "starter.operators.end_everyone")}</button></p>
  </form>
</section>`;
}

/** `GET <OperatorsPath>?q=<prefix>&after=<address>`: one page of people whose address starts with `q`, and the incident form. */
export function peoplePage(
  req: IncomingMessage,
  res: ServerResponse,
  assets: Assets,
  shell: Shell,
  found: PeoplePage | undefined,
  phrase: string,
): void {
  const q = queryParams(req).get("q") ?? "";
  const list =
    found === undefined
      ? html``
      : found.People.length === 0
        ? html`<p class="muted" data-operators-none>${T(req, "starter.operators.none")}</p>`
        : html`<table data-operators-people>
  <thead><tr><th>${T(req, "starter.operators.address")}</th><th>${T(req, "starter.operators.last_signin")}</th></tr></thead>
  <tbody>${found.People.map(
    (p) =>
      html`<tr><td><a href="${req.url?.split("?")[0] ?? ""}/person?address=${encodeURIComponent(p.Address)}" dir="ltr">${p.Address}</a></td><td>${time(p.LastSignin)}</td></tr>`,
  )}</tbody>
</table>
${found.Next === undefined ? html`` : html`<p><a data-operators-next href="?q=${encodeURIComponent(q)}&amp;after=${encodeURIComponent(found.Next)}">${T(req, "starter.operators.next")}</a></p>`}`;
  shell(req, res, assets, {
    title: T(req, "starter.operators.title"),
    body: html`<h1>${T(req, "starter.operators.title")}</h1>
<section class="card">
  <form method="get" data-operators-search>
    <label for="operators-q">${T(req, "starter.operators.search")}</label>
    <input id="operators-q" name="q" type="search" value="${q}" autocomplete="off" required>
    <p><button type="submit">${Icon("user")} ${T(req, "starter.operators.find")}</button></p>
  </form>
  ${list}
</section>
${endEveryone(req, phrase)}`,
  });
}

function table(t: PersonView["Tables"][number]): SafeHTML {
  return html`<h3><code>${t.Table}</code> <span class="muted" data-count="${String(t.Count)}">(${String(t.Count)})</span></h3>
${
  t.Columns.length === 0 || t.Rows.length === 0
    ? html``
    : html`<table data-operators-table="${t.Table}">
  <thead><tr>${t.Columns.map((c) => html`<th><code>${c}</code></th>`)}</tr></thead>
  <tbody>${t.Rows.map((row) => html`<tr>${row.map((v, i) => html`<td dir="auto">${/_at$|^last_seen$/.test(t.Columns[i] ?? "") ? time(v) : v === null ? "" : String(v)}</td>`)}</tr>`)}</tbody>
</table>`
}`;
}

function action(req: IncomingMessage, path: string, subject: string, name: string, withReason: boolean): SafeHTML {
  return html`<form method="post" action="${path}/${name.replace("_", "-")}" data-operators-action="${name}">
  <input type="hidden" name="address" value="${subject}">
  ${
    withReason
      ? html`<label for="reason-${name}">${T(req, "starter.operators.reason")}</label>
  <input id="reason-${name}" name="reason" type="text" maxlength="${String(MAX_REASON)}" required>`
      : html``
  }
  <p><button type="submit" class="${name === "reactivate" ? "" : "danger"}">${T(req, `starter.operators.${name}`)}</button></p>
</form>`;
}

/** `GET <OperatorsPath>/person?address=`: what the README lists of the person, and the actions. */
export function personPage(req: IncomingMessage, res: ServerResponse, assets: Assets, shell: Shell, path: string, view: PersonView): void {
  const query = queryParams(req);
  const done = query.get("done") ?? "";
  const notice = OPERATOR_OUTCOMES.includes(done)
    ? html`<p class="notice ok" role="status" data-outcome="${done}">${Icon("check")} ${T(req, `starter.operators.done.${done}`)}</p>`
    : html``;
  const mail =
    query.get("mail") === "failed"
      ? html`<p class="notice bad" role="alert" data-outcome="mail-failed">${T(req, "starter.operators.mail_failed")}</p>`
      : html``;
  const s = view.Suspension;
  const status =
    s === undefined
      ? html`<p data-operators-status="active">${T(req, "starter.operators.active")}</p>`
      : html`<p data-operators-status="suspended">${Tf(req, "starter.operators.suspended", { reason: s.Reason, operator: s.Operator, when: time(s.At.getTime()) })}</p>`;
  shell(req, res, assets, {
    title: view.Subject,
    body: html`<p><a href="${path}">${T(req, "starter.operators.title")}</a></p>
<h1 dir="ltr" data-operators-person="${view.Subject}">${view.Subject}</h1>
${notice}${mail}
<section class="card">${status}
  ${s === undefined ? action(req, path, view.Subject, "suspend", true) : action(req, path, view.Subject, "reactivate", true)}
  ${action(req, path, view.Subject, "end_access", false)}
  ${action(req, path, view.Subject, "reset_passkeys", false)}
</section>
<section class="card">${view.Tables.map(table)}</section>
<section class="card"><h2>${T(req, "starter.operators.events")}</h2>
<p data-audit-head-seq="${String(view.Head.Seq)}" data-audit-head-hash="${view.Head.Hash}">${T(req, "starter.operators.head")} <code dir="ltr">${String(view.Head.Seq)} · ${view.Head.Hash}</code></p>
<p><a href="${path}/audit?address=${encodeURIComponent(view.Subject)}" download data-operators-audit>${T(req, "starter.operators.export_audit")}</a></p>
<table data-operators-events>
  <thead><tr><th>#</th><th><code>type</code></th><th><code>actor</code></th><th><code>at</code></th></tr></thead>
  <tbody>${view.Events.map((e) => html`<tr><td>${String(e.Seq)}</td><td><code>${e.Type}</code></td><td>${e.Actor}</td><td>${time(e.At.getTime())}</td></tr>`)}</tbody>
</table></section>`,
  });
}
