/*
 * The demo's consent page (latch/oauth `ConsentPage`): which application
 * asks (its name as it declared it, and its host), which access, for which
 * resource, and the two buttons. The client's name is the client's words,
 * so it appears only inside `data-agent-text`, after the demo's own.
 * Contract attributes the tests read: data-consent-client, data-consent-host,
 * data-consent-access ("read" or "write"), data-consent-resource, and
 * data-consent ("allow" / "deny" buttons), and the teams the grant
 * reaches with the person's role in each (the starter's `consentTeams`:
 * data-consent-teams, data-consent-team, data-consent-team-role).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Assets } from "../../../lib/assets/index.ts";
import { html } from "../../../lib/http/index.ts";
import { T } from "../../../lib/i18n/index.ts";
import { Icon } from "../../../lib/icons/index.ts";
import type { Consent } from "../../../lib/oauth/index.ts";
import type { TeamSummary } from "../../../lib/teams/index.ts";
import { consentTeams } from "../../starter/pages/consent.ts";
import { render } from "./layout.ts";

/** `GET /oauth/authorize` for a signed-in person: what the client asks, the teams it reaches, and Allow / Deny. */
export function consentPage(
  req: IncomingMessage,
  res: ServerResponse,
  assets: Assets,
  consent: Consent,
  teams: readonly TeamSummary[],
): void {
  const client = html`<strong data-agent-text dir="auto" data-consent-client>${consent.Client.Name}</strong>`;
  const host = html`<code dir="ltr" data-consent-host>${consent.Client.Host}</code>`;
  render(req, res, assets, {
    title: T(req, "demo.connect.title"),
    body: html`<h1>${Icon("key")} ${T(req, "demo.connect.title")}</h1>
<section class="card">
  <p>${T(req, "demo.connect.asks")}</p>
  <p>${client} · ${host}</p>
  <p data-consent-access="${consent.Access}">${consent.Access === "write" ? T(req, "demo.connect.write") : T(req, "demo.connect.read")}</p>
  <p>${T(req, "demo.connect.resource")} <code data-consent-resource>${consent.Resource}</code></p>
  ${consentTeams(req, teams)}
  <form class="row" method="post" action="${consent.Action}">
    ${consent.Fields.map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
    <button type="submit" name="decision" value="allow" data-consent="allow">${Icon("check")} ${T(req, "demo.connect.allow")}</button>
    <button class="secondary" type="submit" name="decision" value="deny" data-consent="deny">${Icon("x")} ${T(req, "demo.connect.deny")}</button>
  </form>
</section>`,
  });
}
