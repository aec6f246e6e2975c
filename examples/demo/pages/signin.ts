/*
 * The sign-in page (SPEC §4.1: "the sign-in page is the application's own
 * and renders these queries"): `sent=1`, `err=rate|address|expired|keymail`
 * and `force=1`, which it carries into the form so the next POST skips the
 * inbox provider.
 */
import type { HandlerFunc } from "../../../lib/http/index.ts";
import { queryParams, html } from "../../../lib/http/index.ts";
import { T, Tf } from "../../../lib/i18n/index.ts";
import { Icon } from "../../../lib/icons/index.ts";
import { LINK_TTL } from "../../../lib/signin/index.ts";
import type { Assets } from "../../../lib/assets/index.ts";
import { render } from "./layout.ts";

const ERRORS: ReadonlySet<string> = new Set(["rate", "address", "expired", "keymail"]);

/** `GET /signin`. */
export function signinPage(assets: Assets): HandlerFunc {
  return (req, res) => {
    const query = queryParams(req);
    const err = query.get("err") ?? "";
    const force = query.get("force") === "1";
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
<form class="card" method="post" action="/signin">
  <label for="email">${T(req, "signin.email_label")}</label>
  <input id="email" name="email" type="email" autocomplete="username webauthn" required>
  ${force ? html`<input type="hidden" name="force" value="1"><p class="muted">${T(req, "signin.force_hint")}</p>` : html``}
  <div class="row"><button type="submit">${Icon("mail")} ${T(req, "signin.submit")}</button></div>
</form>`,
    });
  };
}
