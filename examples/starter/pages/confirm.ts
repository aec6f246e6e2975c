/*
 * The second-factor pages: `/confirm` (passkey.Config.ConfirmPath), where
 * the emailed link lands a person who has a passkey: the passkey button
 * (lib/client/passkey.js) and the recovery-code form (a plain POST, no
 * script); and `/stepup` (the sign-in StalePath), where
 * RequireFreshSession sends a stale session before a sensitive page.
 */
import type { IncomingMessage } from "node:http";
import type { Assets } from "latch/assets";
import { html, isLocalPath, queryParams, type HandlerFunc, type SafeHTML } from "latch/http";
import { T } from "latch/i18n";
import { Icon } from "latch/icons";
import { render } from "./layout.ts";

/** A passkey ceremony button for lib/client/passkey.js, with its messages translated. */
export function passkeyButton(req: IncomingMessage, kind: "register" | "stepup" | "signin", label: string, next?: string): SafeHTML {
  const base = `/passkey/${kind}`;
  return html`<button type="button" hidden data-passkey="${kind}" data-begin="${base}/begin" data-finish="${base}/finish"${next === undefined ? html`` : html` data-next="${next}"`}${kind === "register" ? html` data-stale="/stepup?next=/account"` : html``}
  data-msg-unsupported="${T(req, "passkey.err.unsupported")}" data-msg-cancelled="${T(req, "passkey.err.cancelled")}" data-msg-failed="${T(req, "passkey.err.failed")}">${Icon("key")} ${label}</button>`;
}

/** `GET /confirm`. */
export function confirmPage(assets: Assets): HandlerFunc {
  return (req, res) => {
    const failed = queryParams(req).get("recovery") === "failed";
    render(req, res, assets, {
      title: T(req, "passkey.confirm.title"),
      scripts: ["passkey.js"],
      body: html`<h1>${T(req, "passkey.confirm.title")}</h1>
<section class="card">
  <p>${T(req, "passkey.confirm.prompt")}</p>
  <p>${passkeyButton(req, "signin", T(req, "passkey.use"))}</p>
  <p data-passkey-status role="alert"></p>
</section>
<section class="card">
  <h2>${T(req, "passkey.recovery.title")}</h2>
  ${failed ? html`<p class="notice bad" role="alert" data-outcome="recovery-failed">${Icon("alert")} ${T(req, "passkey.recovery.failed")}</p>` : html``}
  <form method="post" action="/passkey/signin/recovery">
    <label for="code">${T(req, "passkey.recovery.label")}</label>
    <p class="muted" id="code-hint">${T(req, "passkey.recovery.prompt")}</p>
    <input id="code" name="code" type="text" autocomplete="one-time-code" autocapitalize="none" spellcheck="false" aria-describedby="code-hint" required>
    <p><button class="secondary" type="submit">${T(req, "passkey.recovery.submit")}</button></p>
  </form>
</section>`,
    });
  };
}

/** `GET /stepup?next=<local path>`. */
export function stepUpPage(assets: Assets): HandlerFunc {
  return (req, res) => {
    const asked = queryParams(req).get("next");
    const next = asked !== null && isLocalPath(asked) ? asked : "/account";
    render(req, res, assets, {
      title: T(req, "passkey.stepup.title"),
      scripts: ["passkey.js"],
      body: html`<h1>${T(req, "passkey.stepup.title")}</h1>
<section class="card">
  <p>${T(req, "passkey.stepup.prompt")}</p>
  <p>${passkeyButton(req, "stepup", T(req, "passkey.use"), next)}</p>
  <p data-passkey-status role="alert"></p>
  <form method="post" action="/signout"><p class="muted">${T(req, "starter.stepup.no_passkey")} <button class="link" type="submit">${T(req, "starter.stepup.signin_again")}</button></p></form>
</section>`,
    });
  };
}
