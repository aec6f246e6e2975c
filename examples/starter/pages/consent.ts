/*
 * The consent page (latch/oauth `ConsentPage`): which client asks (its
 * name as it declared it, and its host, "localhost" for one on this
 * machine), which access (read, or read and write: every write still waits
 * for the person's approval), for which resource, and Allow / Decline.
 * The client's name is the client's words: it appears only inside
 * `data-agent-text`. Attributes the tests read: data-consent-client,
 * data-consent-host, data-consent-access ("read" or "write"),
 * data-consent-resource, data-consent ("allow" / "deny" buttons), and,
 * in an application with teams (latch/teams), the teams the grant reaches
 * (issue 38: an agent reaches the person's teams with no more than their
 * role in each): data-consent-teams, one data-consent-team (its id) per
 * team with its role in data-consent-team-role.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Assets } from "latch/assets";
import { html, type SafeHTML } from "latch/http";
import { T } from "latch/i18n";
import { Icon } from "latch/icons";
import type { Consent } from "latch/oauth";
import type { TeamSummary } from "latch/teams";
import { render } from "./layout.ts";

/** The teams a grant reaches (the person's, `Teams.teamsOf`) and their role in each; nothing in an application without teams. */
export function consentTeams(req: IncomingMessage, teams: readonly TeamSummary[] | undefined): SafeHTML {
  if (teams === undefined) return html``;
  if (teams.length === 0) return html`<p data-consent-teams>${T(req, "starter.consent.no_teams")}</p>`;
  return html`<p>${T(req, "starter.consent.teams")}</p>
  <ul class="list" data-consent-teams>${teams.map(
    (t) =>
      html`<li data-consent-team="${t.ID}" data-consent-team-role="${t.Role}"><span dir="auto">${t.Name}</span> <span class="muted">${T(req, `starter.teams.role.${t.Role}`)}</span></li>`,
  )}</ul>`;
}

/** `GET /oauth/authorize` for a signed-in person: what the client asks, the teams it reaches (`teams`, when the application has them), and Allow / Decline. */
export function consentPage(
  req: IncomingMessage,
  res: ServerResponse,
  assets: Assets,
  consent: Consent,
  teams?: readonly TeamSummary[],
): void {
  const write = consent.Access === "write";
  render(req, res, assets, {
    title: T(req, "starter.consent.title"),
    body: html`<h1>${Icon("key")} ${T(req, "starter.consent.title")}</h1>
<section class="card">
  <p>${T(req, "starter.consent.asks")}</p>
  <p><strong data-agent-text dir="auto" data-consent-client>${consent.Client.Name}</strong> · <code dir="ltr" data-consent-host>${consent.Client.Host}</code></p>
  <p data-consent-access="${consent.Access}">${write ? T(req, "starter.consent.write") : T(req, "starter.consent.read")}</p>
  <p>${T(req, "starter.consent.resource")} <code data-consent-resource>${consent.Resource}</code></p>
  ${consentTeams(req, teams)}
  <form method="post" action="${consent.Action}">
    ${consent.Fields.map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
    <button type="submit" name="decision" value="allow" data-consent="allow">${Icon("check")} ${T(req, "starter.consent.allow")}</button>
    <button class="secondary" type="submit" name="decision" value="deny" data-consent="deny">${Icon("x")} ${T(req, "starter.consent.decline")}</button>
  </form>
</section>`,
  });
}
