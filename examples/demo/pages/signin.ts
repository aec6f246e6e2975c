/*
 * The sign-in page (SPEC §4.1: "the sign-in page is the application's own
 * and renders these queries"): `sent=1`, `err=rate|address|expired|keymail`
 * (and latch's `code`) and `force=1`, which it carries into the form so the
 * next POST skips the inbox provider. After `sent=1` (and a refused code)
 * it also shows the code form (`POST /auth/code`, field `code`): the way in
 * when the link was opened on another device.
 */
import { html, queryParams, type HandlerFunc } from "../../../lib/http/index.ts";
import { T, Tf } from "../../../lib/i18n/index.ts";
import { Icon } from "../../../lib/icons/index.ts";
import { CODE_LENGTH, LINK_TTL } from "../../../lib/signin/index.ts";
import type { Assets } from "../../../lib/assets/index.ts";
import { render } from "./layout.ts";

const ERRORS: ReadonlySet<string> = new Set(["rate", "address", "expired", "keymail", "code"]);

/** `GET /signin`. */
export function signinPage(assets: Assets): HandlerFunc {
  return (req, res) => {
    const query = queryParams(req);
    const err = query.get("err") ?? "";
    const force = query.get("force") === "1";
    const codeForm =
      query.get("sent") === "1" || err === "code"
        ? html`<form class="card" method="post" action="/auth/code">
  <label for="code">${T(req, "signin.code_label")}</label>
  <input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 -]*" maxlength="${CODE_LENGTH + 2}" required>
  <div class="row"><button type="submit">${Icon("key")} ${T(req, "signin.code_submit")}</button></div>
</form>`
        : html``;
    const notice =
      query.get("sent") === "1"
        ? html`<p class="card notice ok" role="status" data-outcome="sent">${Icon("mail")} ${Tf(req, "signin.sent", { minutes: LINK_TTL / 60000 })}</p>`
        : ERRORS.has(err)
          ? html`<p class="card notice bad" role="alert" data-outcome="${err}">${Icon("alert")} ${T(req, `signin.err.${err}`)}</p>`
          : html``;
    render(req, res, assets, {
      title: T(req, "signin.title"),
      body: html`<h1>${T(req, "signin.title")}</h1>
${notice}
${codeForm}
<form class="card" method="post" action="/signin">
  <label for="email">${T(req, "signin.email_label")}</label>
  <input id="email" name="email" type="email" autocomplete="username webauthn" required>
  ${force ? html`<input type="hidden" name="force" value="1"><p class="muted">${T(req, "signin.force_hint")}</p>` : html``}
  <div class="row"><button type="submit">${Icon("mail")} ${T(req, "signin.submit")}</button></div>
</form>`,
    });
  };
}
