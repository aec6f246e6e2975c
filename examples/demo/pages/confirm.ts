/*
 * The second-factor prompt at ConfirmPath (/confirm): the passkey button
 * (needs JavaScript) and the recovery-code form (a plain form POST, no
 * script needed); and the step-up page (/stepup) that RequireFreshSession
 * sends stale sessions to.
 */
import type { HandlerFunc } from "../../../lib/http/index.ts";
import { queryParams, html, isLocalPath } from "../../../lib/http/index.ts";
import { T } from "../../../lib/i18n/index.ts";
import { Icon } from "../../../lib/icons/index.ts";
import type { Assets } from "../../../lib/assets/index.ts";
import { passkeyButton } from "./account.ts";
import { render } from "./layout.ts";

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
  <div class="row">${passkeyButton(req, "signin", T(req, "passkey.use"))}</div>
  <p data-passkey-status role="alert"></p>
</section>
<section class="card">
  <h2>${T(req, "passkey.recovery.title")}</h2>
  ${failed ? html`<p class="notice bad" role="alert" data-outcome="recovery-failed">${Icon("alert")} ${T(req, "passkey.recovery.failed")}</p>` : html``}
  <form method="post" action="/passkey/signin/recovery">
    <label for="code">${T(req, "passkey.recovery.label")}</label>
    <p class="muted">${T(req, "passkey.recovery.prompt")}</p>
    <input id="code" name="code" type="text" autocomplete="one-time-code" autocapitalize="none" spellcheck="false" required>
    <div class="row"><button type="submit">${T(req, "passkey.recovery.submit")}</button></div>
  </form>
</section>`,
    });
  };
}

/** Returns `next` when it is a local path, else the fallback (no open redirect). */
export function localPath(next: string | null, fallback: string): string {
  return next !== null && isLocalPath(next) ? next : fallback;
}

/** `GET /stepup?next=...`: the step-up prompt for a stale session. */
export function stepUpPage(assets: Assets): HandlerFunc {
  return (req, res) => {
    const next = localPath(queryParams(req).get("next"), "/account");
    render(req, res, assets, {
      title: T(req, "passkey.stepup.title"),
      scripts: ["passkey.js"],
      body: html`<h1>${T(req, "passkey.stepup.title")}</h1>
<section class="card">
  <p>${T(req, "passkey.stepup.prompt")}</p>
  <div class="row">${passkeyButton(req, "stepup", T(req, "passkey.use"), next)}</div>
  <p data-passkey-status role="alert"></p>
  <form method="post" action="/signout"><p class="muted"><button class="secondary" type="submit">${Icon("mail")} ${T(req, "demo.home.signin")}</button></p></form>
</section>`,
    });
  };
}
