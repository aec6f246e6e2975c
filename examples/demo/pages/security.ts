/*
 * The security page (`GET /account/security`, behind RequireFreshSession):
 * the person's live sessions, each an element with `data-session-id` (its
 * public id) and, for this browser's, `data-current`; a form per session
 * to end it (`POST /account/sessions/revoke`, field `id`) and one to end
 * all the others (`POST /account/sessions/revoke-others`); and the
 * person's passkeys (`data-credential`), managed on /account; then the
 * starter's cards of latch/account: the address (`#address`) and the
 * person's data (`#data`: export, deletion).
 */
import type { IncomingMessage } from "node:http";
import { html, type HandlerFunc, type SafeHTML } from "../../../lib/http/index.ts";
import { LocaleFrom, T, Tf } from "../../../lib/i18n/index.ts";
import { Icon } from "../../../lib/icons/index.ts";
import { currentSession, type Sessions, type SessionSummary } from "../../../lib/session/index.ts";
import { From } from "../../../lib/signin/index.ts";
import type { Assets } from "../../../lib/assets/index.ts";
import type { Passkey } from "../../../lib/passkey/index.ts";
import { addressSection, dataSection } from "../../starter/pages/account-life.ts";
import { methodName } from "../../starter/pages/layout.ts";
import { render } from "./layout.ts";

function when(req: IncomingMessage, at: Date): string {
  return new Intl.DateTimeFormat(LocaleFrom(req), { dateStyle: "medium", timeStyle: "short" }).format(at);
}

function sessionItem(req: IncomingMessage, s: SessionSummary): SafeHTML {
  const detail = Tf(req, "demo.sessions.detail", {
    created: when(req, s.CreatedAt),
    method: methodName(req, s.Method),
    seen: when(req, s.LastSeen),
  });
  const device = s.Device === "" ? T(req, "demo.sessions.device_unknown") : s.Device;
  return html`<li class="card" data-session-id="${s.PublicID}"${s.Current ? html` data-current` : html``}>
  <p>${Icon(s.Current ? "check" : "user")} <strong>${device}</strong>${s.Current ? html` · ${T(req, "demo.sessions.current")}` : html``}</p>
  <p class="muted">${detail}</p>
  <form method="post" action="/account/sessions/revoke">
    <input type="hidden" name="id" value="${s.PublicID}">
    <button class="secondary" type="submit">${Icon("sign-out")} ${T(req, "demo.sessions.revoke")}</button>
  </form>
</li>`;
}

// The person's passkeys, read-only here: they are managed on /account.
function passkeyItems(req: IncomingMessage, keys: Passkey, subject: string): SafeHTML {
  const credentials = keys.Credentials(subject);
  if (credentials.length === 0) return html`<p class="muted">${T(req, "passkey.list.empty")}</p>`;
  return html`<ul class="sessions">${credentials.map((c) => html`<li class="card" data-credential="${c.id}"><p>${Icon("key")} <strong>${c.name}</strong></p></li>`)}</ul>`;
}

/** `GET /account/security`. */
export function securityPage(assets: Assets, sessions: Sessions, keys: Passkey): HandlerFunc {
  return (req, res) => {
    const list = sessions.List(From(req)?.Subject ?? "", currentSession(req));
    render(req, res, assets, {
      title: T(req, "demo.fresh.title"),
      bodyAttrs: { "data-method": From(req)?.Method ?? "" },
      body: html`<h1>${T(req, "demo.fresh.title")}</h1>
<p class="card">${T(req, "demo.fresh.body")}</p>
<h2>${T(req, "demo.sessions.title")}</h2>
<ul class="sessions">${list.map((s) => sessionItem(req, s))}</ul>
<form method="post" action="/account/sessions/revoke-others">
  <button class="danger" type="submit">${Icon("x")} ${T(req, "demo.sessions.revoke_others")}</button>
</form>
<h2>${T(req, "passkey.list.title")}</h2>
${passkeyItems(req, keys, From(req)?.Subject ?? "")}
<p><a href="/account">${T(req, "demo.security.manage_passkeys")}</a></p>
${addressSection(req, From(req)?.Subject ?? "")}
${dataSection(req)}
<p><a href="/account">${T(req, "jobs.continue")}</a></p>`,
    });
  };
}
