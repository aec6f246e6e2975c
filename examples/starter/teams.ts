/*
 * The routes of latch/teams' handlers and the starter's team pages
 * (pages/teams.ts), mounted in one call: `/teams` (the person's teams, and
 * create), `/teams/{team}` (a member's view), `/teams/{team}/delete` (the
 * owner's confirmation), the accept page of an invitation, and each form's
 * POST. A team's page is the 404 page for anyone not in the team, as its
 * handlers are (Teams.view, like roleOf, answers undefined). The demo and
 * step 8 of docs/guide.md mount it.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Assets } from "latch/assets";
import { PathValue, type Group, type Mux } from "latch/router";
import { From } from "latch/signin";
import type { Teams } from "latch/teams";
import { notFoundPage } from "./pages/errors.ts";
import { deleteTeamPage, teamPage, teamsPage, type Shell } from "./pages/teams.ts";

/** Where the team pages mount, and what they render with. */
export interface TeamPagesDeps {
  mux: Mux;
  /** Routes behind RequireSession. */
  signedIn: Group;
  teams: Teams;
  assets: Assets;
  /** The application's layout. */
  shell: Shell;
}

/** Mounts the teams' pages and handlers (the file's header lists them). */
export function mountTeamPages({ mux, signedIn, teams, assets, shell }: TeamPagesDeps): void {
  const subject = (req: IncomingMessage): string => From(req)?.Subject ?? "";
  const member =
    (page: typeof teamPage, owner = false) =>
    (req: IncomingMessage, res: ServerResponse): void | Promise<void> => {
      const view = teams.view(PathValue(req, "team") ?? "", subject(req));
      if (view === undefined || (owner && view.Role !== "owner")) return notFoundPage(assets)(req, res);
      page(req, res, assets, shell, view);
    };
  signedIn.Handle("GET /teams", (req, res) => teamsPage(req, res, assets, shell, teams.teamsOf(subject(req))));
  signedIn.Handle("POST /teams", teams.Create);
  mux.Handle("GET /teams/join", teams.Join);
  mux.Handle("POST /teams/join", teams.Accept);
  signedIn.Handle("GET /teams/{team}", member(teamPage));
  signedIn.Handle("GET /teams/{team}/delete", member(deleteTeamPage, true));
  signedIn.Handle("POST /teams/{team}/rename", teams.Rename);
  signedIn.Handle("POST /teams/{team}/delete", teams.Delete);
  signedIn.Handle("POST /teams/{team}/invitations", teams.Invite);
  signedIn.Handle("POST /teams/{team}/invitations/revoke", teams.Revoke);
  signedIn.Handle("POST /teams/{team}/members/role", teams.SetRole);
  signedIn.Handle("POST /teams/{team}/members/remove", teams.Remove);
  signedIn.Handle("POST /teams/{team}/leave", teams.Leave);
}
