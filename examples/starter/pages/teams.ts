/*
 * latch/teams' pages: the person's teams and the form that creates one
 * (field `name`); a team's page (`data-team`, the viewer's role in
 * `data-role`): its members (`data-member`, `data-member-role`), role
 * changes and removal (fields `member`, `role`), the invite form (fields
 * `email`, `role`) and pending invitations (`data-invitation`) for admins,
 * leave, rename and delete for owners; the delete confirmation naming what
 * goes; the accept page of an invitation; and a refusal (`data-refusal`,
 * the field in `data-field`). `shell` is the application's layout. A
 * team's page links to its task list (`data-team-tasks`, tasks.ts).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Assets } from "latch/assets";
import { html, queryParams, type SafeHTML } from "latch/http";
import { T, Tf } from "latch/i18n";
import { Icon } from "latch/icons";
import { From } from "latch/signin";
import { MAX_TEAM_NAME, ROLES, may, type Invitation, type Refusal, type Role, type TeamSummary, type TeamView } from "latch/teams";
import type { Page } from "./layout.ts";

/** The layout the pages render in (the starter's `render`, or the application's). */
export type Shell = (req: IncomingMessage, res: ServerResponse, assets: Assets, page: Page, status?: number) => void;

const roleName = (req: IncomingMessage, role: Role): string => T(req, `starter.teams.role.${role}`);

function roleSelect(req: IncomingMessage, id: string, chosen: Role, allowed: readonly Role[]): SafeHTML {
  return html`<select id="${id}" name="role">${allowed.map(
    (r) => html`<option value="${r}"${r === chosen ? html` selected` : html``}>${roleName(req, r)}</option>`,
  )}</select>`;
}

const nameField = (req: IncomingMessage, value = ""): SafeHTML =>
  html`<label for="team-name">${T(req, "starter.teams.name")}</label>
  <input id="team-name" name="name" type="text" maxlength="${MAX_TEAM_NAME}" value="${value}" required>`;

/** `GET /teams`: the person's teams and the form that creates one. */
export function teamsPage(req: IncomingMessage, res: ServerResponse, assets: Assets, shell: Shell, teams: readonly TeamSummary[]): void {
  const list =
    teams.length === 0
      ? html`<p class="muted">${T(req, "starter.teams.empty")}</p>`
      : html`<ul class="list">${teams.map(
          (t) =>
            html`<li data-team="${t.ID}"><a href="/teams/${t.ID}" dir="auto">${t.Name}</a> <span class="muted">${roleName(req, t.Role)}</span></li>`,
        )}</ul>`;
  shell(req, res, assets, {
    title: T(req, "starter.teams.title"),
    body: html`<h1>${T(req, "starter.teams.title")}</h1>
${list}
<form class="card" method="post" action="/teams">
  ${nameField(req)}
  <p><button type="submit">${Icon("check")} ${T(req, "starter.teams.create")}</button></p>
</form>`,
  });
}

function memberRow(req: IncomingMessage, team: TeamView, m: TeamView["Members"][number], self: string | undefined): SafeHTML {
  const manage = may(team.Role, "invite") && (team.Role === "owner" || m.Role !== "owner");
  const allowed = team.Role === "owner" ? ROLES : ROLES.filter((r) => r !== "owner");
  const action = (path: string): string => `/teams/${team.ID}/members/${path}`;
  // One's own row has no Remove: "Leave the team" below the list is that.
  const remove =
    m.Subject === self
      ? html``
      : html`<form class="inline" method="post" action="${action("remove")}">
    <input type="hidden" name="member" value="${m.Subject}">
    <button class="danger" type="submit">${Icon("x")} ${T(req, "starter.teams.remove")}</button>
  </form>`;
  return html`<li data-member="${m.Subject}" data-member-role="${m.Role}">
  <span class="who"><span dir="ltr">${m.Subject}</span> <span class="muted">${roleName(req, m.Role)}</span></span>
  ${
    manage
      ? html`<form class="inline" method="post" action="${action("role")}">
    <input type="hidden" name="member" value="${m.Subject}">
    <label class="visually-hidden" for="role-${m.Subject}">${T(req, "starter.teams.role")}</label>${roleSelect(req, `role-${m.Subject}`, m.Role, allowed)}
    <button class="secondary" type="submit">${T(req, "starter.teams.change")}</button>
  </form>
  ${remove}`
      : html``
  }
</li>`;
}

function inviteCard(req: IncomingMessage, team: TeamView): SafeHTML {
  if (!may(team.Role, "invite")) return html``;
  const allowed = team.Role === "owner" ? ROLES : ROLES.filter((r) => r !== "owner");
  return html`<section class="card">
  <h2>${T(req, "starter.teams.invite")}</h2>
  <form method="post" action="/teams/${team.ID}/invitations">
    <label for="invite-email">${T(req, "starter.teams.email")}</label>
    <input id="invite-email" name="email" type="email" autocomplete="off" required>
    <label for="invite-role">${T(req, "starter.teams.role")}</label>${roleSelect(req, "invite-role", "member", allowed)}
    <p><button type="submit">${Icon("mail")} ${T(req, "starter.teams.invite")}</button></p>
  </form>
  ${
    team.Invitations.length === 0
      ? html``
      : html`<h3>${T(req, "starter.teams.pending")}</h3>
  <ul class="list">${team.Invitations.map(
    (
      i,
    ) => html`<li data-invitation="${i.ID}"><span class="who"><span dir="ltr">${i.Address}</span> <span class="muted">${roleName(req, i.Role)}</span></span>
    <form class="inline" method="post" action="/teams/${team.ID}/invitations/revoke"><input type="hidden" name="invitation" value="${i.ID}">
    <button class="danger" type="submit">${T(req, "starter.teams.revoke")}</button></form></li>`,
  )}</ul>`
  }
</section>`;
}

function ownerCard(req: IncomingMessage, team: TeamView): SafeHTML {
  if (!may(team.Role, "own")) return html``;
  return html`<section class="card">
  <form method="post" action="/teams/${team.ID}/rename">
    ${nameField(req, team.Name)}
    <p><button class="secondary" type="submit">${T(req, "starter.teams.rename")}</button></p>
  </form>
  <p><a class="button danger" href="/teams/${team.ID}/delete">${Icon("x")} ${T(req, "starter.teams.delete")}</a></p>
</section>`;
}

/** `GET /teams/{team}`: the team as one of its members sees it. */
export function teamPage(req: IncomingMessage, res: ServerResponse, assets: Assets, shell: Shell, team: TeamView): void {
  const outcome = ["joined", "invited", "revoked", "renamed", "role", "removed"].find((k) => queryParams(req).get(k) === "1");
  shell(req, res, assets, {
    title: team.Name,
    bodyAttrs: { "data-team": team.ID, "data-role": team.Role },
    body: html`<h1 dir="auto">${team.Name}</h1>
${outcome === undefined ? html`` : html`<p class="notice ok" role="status" data-outcome="${outcome}">${Icon("check")} ${T(req, "starter.teams.done")}</p>`}
<p><a href="/teams/${team.ID}/tasks" data-team-tasks>${T(req, "tasks.title")}</a></p>
<section class="card">
  <h2>${T(req, "starter.teams.members")}</h2>
  <ul class="list">${team.Members.map((m) => memberRow(req, team, m, From(req)?.Subject))}</ul>
  <form method="post" action="/teams/${team.ID}/leave"><p><button class="secondary" type="submit">${T(req, "starter.teams.leave")}</button></p></form>
</section>
${inviteCard(req, team)}
${ownerCard(req, team)}`,
  });
}

/** `GET /teams/{team}/delete`: what deleting the team removes, and the form (the team's name typed, field `name`). */
export function deleteTeamPage(req: IncomingMessage, res: ServerResponse, assets: Assets, shell: Shell, team: TeamView): void {
  shell(req, res, assets, {
    title: T(req, "starter.teams.delete"),
    body: html`<h1>${T(req, "starter.teams.delete")}</h1>
<form class="card" method="post" action="/teams/${team.ID}/delete" data-team-delete>
  <p>${Tf(req, "starter.teams.delete_body", { team: team.Name, members: team.Members.length, invitations: team.Invitations.length })}</p>
  ${nameField(req)}
  <p><button class="danger" type="submit">${Icon("x")} ${T(req, "starter.teams.delete")}</button></p>
</form>`,
  });
}

/** `GET /teams/join?token=`: the team, the inviter and the role, and Accept (the token in a hidden field). */
export function joinPage(req: IncomingMessage, res: ServerResponse, assets: Assets, shell: Shell, invitation: Invitation): void {
  const team = invitation.Team.Name;
  shell(req, res, assets, {
    title: Tf(req, "starter.teams.join", { team }),
    body: html`<h1 dir="auto">${Tf(req, "starter.teams.join", { team })}</h1>
<form class="card" method="post" action="/teams/join" data-team-join="${invitation.Team.ID}">
  <p>${Tf(req, "starter.teams.join_body", { inviter: invitation.Inviter, team, role: roleName(req, invitation.Role) })}</p>
  <input type="hidden" name="token" value="${queryParams(req).get("token") ?? ""}">
  <p><button type="submit">${Icon("check")} ${T(req, "starter.teams.accept")}</button></p>
</form>`,
  });
}

/** latch/teams' `RefusalPage`: the status, the field at fault and why. */
export function refusalPage(req: IncomingMessage, res: ServerResponse, assets: Assets, shell: Shell, refusal: Refusal): void {
  shell(
    req,
    res,
    assets,
    {
      title: T(req, "starter.teams.refused"),
      body: html`<section class="card notice bad" role="alert" data-refusal="${refusal.Code}" data-field="${refusal.Field}" data-status="${refusal.Status}">
  <h1>${Icon("alert")} ${T(req, "starter.teams.refused")}</h1>
  <p><code>${refusal.Field}</code>: ${refusal.Reason}</p>
  <p><a href="/teams">${T(req, "starter.teams.title")}</a></p>
</section>`,
    },
    refusal.Status,
  );
}
