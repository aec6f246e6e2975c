/*
 * The signed-in account page: who you are and how you signed in (the
 * <body> carries data-subject and data-method), your passkeys (add, rename,
 * delete), recovery codes (generate, shown once; how many remain), and the
 * background-job demo.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { queryParams, html, type SafeHTML } from "../../../lib/http/index.ts";
import { T, Tf } from "../../../lib/i18n/index.ts";
import { Icon } from "../../../lib/icons/index.ts";
import type { Passkey } from "../../../lib/passkey/index.ts";
import { From } from "../../../lib/signin/index.ts";
import type { Assets } from "../../../lib/assets/index.ts";
import { methodName, render } from "./layout.ts";

/** The client's passkey button attributes, localized. */
export function passkeyButton(req: IncomingMessage, kind: "register" | "stepup" | "signin", label: string, next?: string, stale?: string): SafeHTML {
  const base = kind === "register" ? "/passkey/register" : kind === "stepup" ? "/passkey/stepup" : "/passkey/signin";
  return html`<button type="button" hidden data-passkey="${kind}" data-begin="${base}/begin" data-finish="${base}/finish"${next === undefined ? "" : html` data-next="${next}"`}${stale === undefined ? "" : html` data-stale="${stale}"`}
  data-msg-unsupported="${T(req, "passkey.err.unsupported")}" data-msg-cancelled="${T(req, "passkey.err.cancelled")}" data-msg-failed="${T(req, "passkey.err.failed")}">${Icon("key")} ${label}</button>`;
}

function passkeyList(req: IncomingMessage, passkey: Passkey, subject: string): SafeHTML {
  const credentials = passkey.Credentials(subject);
  if (credentials.length === 0) return html`<p class="muted">${T(req, "passkey.list.empty")}</p>`;
  return html`<table><tbody>${credentials.map(
    (c) => html`<tr data-credential="${c.id}"><td>
  <form class="row" method="post" action="/account/passkeys/rename">
    <input type="hidden" name="id" value="${c.id}">
    <input type="text" name="name" value="${c.name}" aria-label="${T(req, "passkey.name_label")}" maxlength="64">
    <button class="secondary" type="submit">${T(req, "passkey.save")}</button>
  </form></td><td>
  <form method="post" action="/account/passkeys/delete">
    <input type="hidden" name="id" value="${c.id}">
    <button class="danger" type="submit">${Icon("x")} ${T(req, "passkey.delete")}</button>
  </form></td></tr>`,
  )}</tbody></table>`;
}

/** Renders the account page; `codes` are freshly generated recovery codes to show once. */
export function renderAccount(req: IncomingMessage, res: ServerResponse, assets: Assets, passkey: Passkey, codes?: string[]): void {
  const who = From(req);
  if (who === undefined) throw new Error("account page without RequireSession");
  const remaining = passkey.RecoveryCodesRemaining(who.Subject);
  // The first passkey leads to recovery codes: without them a lost device locks the person out.
  const codesNeeded = codes === undefined && remaining === 0 && passkey.Credentials(who.Subject).length > 0;
  const finished = queryParams(req).get("job") === "done";
  const body = html`<h1>${T(req, "account.title")}</h1>
${finished ? html`<p class="card notice ok" role="status" data-outcome="job-done">${Icon("check")} ${T(req, "jobs.done")}</p>` : html``}
<section class="card">
  <p>${Icon("user")} ${Tf(req, "signin.signed_in_as", { subject: who.Subject })}</p>
  <p class="muted">${Tf(req, "account.method", { method: methodName(req, who.Method) })}</p>
  <div class="row">
    <a href="/account/security">${Icon("lock")} ${T(req, "demo.fresh.title")}</a>
    <a href="/account/agents">${Icon("key")} ${T(req, "demo.agents.title")}</a>
    <a href="/account/activity">${Icon("info")} ${T(req, "demo.activity.title")}</a>
    <form class="inline" method="post" action="/signout"><button class="secondary" type="submit">${Icon("sign-out")} ${T(req, "signin.signout")}</button></form>
  </div>
</section>
<section class="card">
  <h2>${T(req, "demo.resources.title")}</h2>
  <div class="row">
    <a href="/expenses" data-resource-link="expenses">${T(req, "expenses.title")}</a>
    <a href="/notes" data-resource-link="notes">${T(req, "notes.title")}</a>
  </div>
</section>
<section class="card">
  <h2>${T(req, "passkey.list.title")}</h2>
  ${passkeyList(req, passkey, who.Subject)}
  <div class="row">${passkeyButton(req, "register", T(req, "passkey.enroll"), undefined, "/stepup?next=/account")}</div>
  <p data-passkey-status role="alert"></p>
</section>
<section class="card">
  <h2>${T(req, "passkey.recovery.title")}</h2>
  ${codesNeeded ? html`<p class="notice" role="status" data-outcome="codes-needed">${Icon("info")} ${T(req, "demo.recovery.needed")}</p>` : html``}
  ${codes === undefined
    ? html`<p class="muted" data-recovery-remaining="${remaining}">${Tf(req, "passkey.recovery.remaining", { count: remaining })}</p>`
    : html`<p class="notice ok">${T(req, "passkey.recovery.shown_once")}</p><ul class="codes">${codes.map((code) => html`<li><code>${code}</code></li>`)}</ul>`}
  <form method="post" action="/account/recovery-codes">
    <p class="muted">${T(req, "passkey.recovery.replaces")}</p>
    <button class="${codesNeeded ? "" : "secondary"}" type="submit">${T(req, "passkey.recovery.generate")}</button>
  </form>
</section>
<section class="card">
  <h2>${T(req, "demo.jobs.title")}</h2>
  <form class="row" method="post" action="/jobs">
    <button name="kind" value="ok" type="submit">${Icon("spinner")} ${T(req, "demo.jobs.start_ok")}</button>
    <button class="danger" name="kind" value="fail" type="submit">${Icon("alert")} ${T(req, "demo.jobs.start_fail")}</button>
  </form>
</section>`;
  render(req, res, assets, {
    title: T(req, "account.title"),
    body,
    bodyAttrs: { "data-subject": who.Subject, "data-method": who.Method },
    scripts: ["passkey.js"],
  });
}
