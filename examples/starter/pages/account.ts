/*
 * The account page (behind RequireSession): who you are and how you signed
 * in (in words; <body data-subject data-method> for scripts and tests),
 * your passkeys (add, rename, delete), recovery codes (how many remain;
 * freshly generated ones shown once; after the first passkey, a prompt to
 * generate them), a background job to start, the way to agent tokens,
 * approvals and the security page (pages/security.ts), and sign-out. Each card is its own function, for an account
 * page that adds its own cards.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Assets } from "latch/assets";
import { html, type SafeHTML } from "latch/http";
import { T, Tf } from "latch/i18n";
import { Icon } from "latch/icons";
import type { Passkey } from "latch/passkey";
import { From } from "latch/signin";
import { passkeyButton } from "./confirm.ts";
import { methodName, render, starterNav } from "./layout.ts";

function passkeyRows(req: IncomingMessage, keys: Passkey, subject: string): SafeHTML {
  const credentials = keys.Credentials(subject);
  if (credentials.length === 0) return html`<p class="muted">${T(req, "passkey.list.empty")}</p>`;
  return html`<ul class="list">${credentials.map(
    (c) => html`<li data-credential="${c.id}">
  <form class="inline" method="post" action="/account/passkeys/rename">
    <input type="hidden" name="id" value="${c.id}">
    <input type="text" name="name" value="${c.name}" aria-label="${T(req, "passkey.name_label")}" maxlength="64">
    <button class="secondary" type="submit">${T(req, "passkey.save")}</button>
  </form>
  <form class="inline" method="post" action="/account/passkeys/delete">
    <input type="hidden" name="id" value="${c.id}">
    <button class="danger" type="submit">${Icon("x")} ${T(req, "passkey.delete")}</button>
  </form>
</li>`,
  )}</ul>`;
}

/** Who is signed in and how (the method in words), and the sign-out button. */
export function whoSection(req: IncomingMessage, who: { Subject: string; Method: string }): SafeHTML {
  return html`<section class="card">
  <p>${Icon("user")} ${Tf(req, "signin.signed_in_as", { subject: who.Subject })}</p>
  <p class="muted">${Tf(req, "account.method", { method: methodName(req, who.Method) })}</p>
  <form method="post" action="/signout"><button class="secondary" type="submit">${Icon("sign-out")} ${T(req, "signin.signout")}</button></form>
</section>`;
}

/** The person's passkeys (rename, delete) and the button adding one (lib/client/passkey.js). */
export function passkeysSection(req: IncomingMessage, keys: Passkey, subject: string): SafeHTML {
  return html`<section class="card">
  <h2>${T(req, "passkey.list.title")}</h2>
  ${passkeyRows(req, keys, subject)}
  <p>${passkeyButton(req, "register", T(req, "passkey.enroll"))}</p>
  <p data-passkey-status role="alert"></p>
</section>`;
}

/**
 * Recovery codes: how many remain, or `codes` freshly generated (shown this
 * once), or, after the first passkey, a prompt to generate them.
 */
export function recoverySection(req: IncomingMessage, keys: Passkey, subject: string, codes?: readonly string[]): SafeHTML {
  const remaining = keys.RecoveryCodesRemaining(subject);
  const hasPasskey = keys.Credentials(subject).length > 0;
  const generate = html`<form method="post" action="/account/recovery-codes">
    <p><button class="${hasPasskey && remaining === 0 ? "" : "secondary"}" type="submit">${T(req, "passkey.recovery.generate")}</button></p>
  </form>`;
  const recovery =
    codes !== undefined
      ? html`<p class="notice ok" role="status">${T(req, "passkey.recovery.shown_once")}</p><ul class="codes">${codes.map((code) => html`<li><code>${code}</code></li>`)}</ul>`
      : hasPasskey && remaining === 0
        ? html`<p class="notice" role="status" data-outcome="codes-needed">${Icon("info")} ${T(req, "starter.account.codes_needed")}</p>`
        : html`<p class="muted" data-recovery-remaining="${remaining}">${Tf(req, "passkey.recovery.remaining", { count: remaining })}</p>`;
  return html`<section class="card" id="recovery">
  <h2>${T(req, "passkey.recovery.title")}</h2>
  ${recovery}
  ${remaining > 0 ? html`<p class="muted">${T(req, "passkey.recovery.replaces")}</p>` : html``}
  ${hasPasskey || remaining > 0 ? generate : html``}
</section>`;
}

/** Renders the account page; `codes` are freshly generated recovery codes, shown this once. */
export function renderAccount(req: IncomingMessage, res: ServerResponse, assets: Assets, keys: Passkey, codes?: readonly string[]): void {
  const who = From(req);
  if (who === undefined) throw new Error("account page without RequireSession");
  render(req, res, assets, {
    nav: starterNav(req),
    title: T(req, "account.title"),
    scripts: ["passkey.js"],
    bodyAttrs: { "data-subject": who.Subject, "data-method": who.Method },
    body: html`<h1>${T(req, "account.title")}</h1>
${whoSection(req, who)}
${passkeysSection(req, keys, who.Subject)}
${recoverySection(req, keys, who.Subject, codes)}
<section class="card">
  <h2>${T(req, "starter.jobs.title")}</h2>
  <form method="post" action="/jobs"><button type="submit">${T(req, "starter.jobs.start")}</button></form>
</section>
<nav class="card">${Icon("key")} <a href="/account/agents">${T(req, "starter.agents.title")}</a> · <a href="/account/approvals">${T(req, "starter.approvals.title")}</a> · <a href="/account/security" data-account-link="security">${T(req, "starter.account.security.title")}</a></nav>`,
  });
}
