/*
 * The security page (`GET /account/security`, behind RequireFreshSession;
 * sign-in's `SessionsPath`, latch/account's `AccountPath` and the security
 * notices' `SecurityPath`): the person's live sessions, each an element
 * with `data-session-id` (its public id) and, for this browser's,
 * `data-current`; a form per session to end it (`POST
 * /account/sessions/revoke`, field `id`) and one to end all the others
 * (`POST /account/sessions/revoke-others`); the person's passkeys
 * (`data-credential`), managed on /account; what to do after a security
 * notice they did not expect (`data-account-notices`); then the cards of
 * latch/account (account-life.ts): the address (`#address`) and the
 * person's data (`#data`: export, deletion).
 */
import type { IncomingMessage } from "node:http";
import type { Assets } from "latch/assets";
import { html, type HandlerFunc, type SafeHTML } from "latch/http";
import { LocaleFrom, T, Tf } from "latch/i18n";
import { Icon } from "latch/icons";
import type { Passkey } from "latch/passkey";
import { currentSession, type Sessions, type SessionSummary } from "latch/session";
import { From } from "latch/signin";
import { addressSection, dataSection } from "./account-life.ts";
import { methodName } from "./layout.ts";
import type { Shell } from "./teams.ts";

function when(req: IncomingMessage, at: Date): string {
  return new Intl.DateTimeFormat(LocaleFrom(req), { dateStyle: "medium", timeStyle: "short" }).format(at);
}

function sessionItem(req: IncomingMessage, s: SessionSummary): SafeHTML {
  const detail = Tf(req, "starter.account.sessions.detail", {
    created: when(req, s.CreatedAt),
    method: methodName(req, s.Method),
    seen: when(req, s.LastSeen),
  });
  const device = s.Device === "" ? T(req, "starter.account.sessions.device_unknown") : s.Device;
  return html`<li class="card" data-session-id="${s.PublicID}"${s.Current ? html` data-current` : html``}>
  <p>${Icon(s.Current ? "check" : "user")} <strong>${device}</strong>${s.Current ? html` · ${T(req, "starter.account.sessions.current")}` : html``}</p>
  <p class="muted">${detail}</p>
  <form method="post" action="/account/sessions/revoke">
    <input type="hidden" name="id" value="${s.PublicID}">
    <button class="secondary" type="submit">${Icon("sign-out")} ${T(req, "starter.account.sessions.revoke")}</button>
  </form>
</li>`;
}

// The person's passkeys, read-only here: they are managed on /account.
function passkeyItems(req: IncomingMessage, keys: Passkey, subject: string): SafeHTML {
  const credentials = keys.Credentials(subject);
  if (credentials.length === 0) return html`<p class="muted">${T(req, "passkey.list.empty")}</p>`;
  return html`<ul class="sessions">${credentials.map((c) => html`<li class="card" data-credential="${c.id}"><p>${Icon("key")} <strong>${c.name}</strong></p></li>`)}</ul>`;
}

/** `GET /account/security`, in the application's layout (`shell`). */
export function securityPage(assets: Assets, shell: Shell, sessions: Sessions, keys: Passkey): HandlerFunc {
  return (req, res) => {
    const subject = From(req)?.Subject ?? "";
    const list = sessions.List(subject, currentSession(req));
    shell(req, res, assets, {
      title: T(req, "starter.account.security.title"),
      bodyAttrs: { "data-method": From(req)?.Method ?? "" },
      body: html`<h1>${T(req, "starter.account.security.title")}</h1>
<p class="card">${T(req, "starter.account.security.body")}</p>
<h2>${T(req, "starter.account.sessions.title")}</h2>
<ul class="sessions">${list.map((s) => sessionItem(req, s))}</ul>
<form method="post" action="/account/sessions/revoke-others">
  <p><button class="danger" type="submit">${Icon("x")} ${T(req, "starter.account.sessions.revoke_others")}</button></p>
</form>
<h2>${T(req, "passkey.list.title")}</h2>
${passkeyItems(req, keys, subject)}
<p><a href="/account">${T(req, "starter.account.security.manage_passkeys")}</a></p>
<p class="notice" data-account-notices>${Icon("info")} ${T(req, "starter.account.notices.body")}</p>
${addressSection(req, subject)}
${dataSection(req)}
<p><a href="/account">${T(req, "jobs.continue")}</a></p>`,
    });
  };
}
