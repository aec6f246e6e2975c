/*
 * Step 8 of docs/guide.md: records a team shares. latch/teams keeps the
 * teams, their members and roles, and the invitations that bring people
 * in by email (the starter's pages: `/teams`, `/teams/{team}`, the accept
 * page); the starter's `tasks` is a resource turned into a team resource:
 * `Scope: ScopeKind.TeamScoped` and a Route holding `{team}`, mounted with
 * the `Teams` that answers who is in which team. Its pages and tools are
 * step 6's, scoped to the team instead of the person.
 */
import { ctxFrom } from "latch";
import type { ToolRegistry } from "latch/agent";
import type { Assets } from "latch/assets";
import type { DB } from "latch/db";
import { EventStore } from "latch/events";
import { NewLocales } from "latch/i18n";
import type { Mailer } from "latch/mail";
import { mountResource } from "latch/manifest";
import { PathValue, type Group, type Mux } from "latch/router";
import type { Signin } from "latch/signin";
import { create, type Teams } from "latch/teams";
import { LOCALES_DIR } from "../starter/files.ts";
import { render } from "../starter/pages/layout.ts";
import { joinPage, refusalPage } from "../starter/pages/teams.ts";
import { mountTeamPages } from "../starter/teams.ts";
import { tasks } from "../starter/tasks.ts";

/** What teams need. */
export interface TeamsDeps {
  db: DB;
  mux: Mux;
  auth: Signin;
  /** Routes behind RequireSession. */
  signedIn: Group;
  tools: ToolRegistry;
  assets: Assets;
  /** Step 2's mailer: invitations are sent as sign-in links are. */
  mailer: Mailer;
  Origin: string;
}

/** Mounts the teams' pages and handlers and the team's task list; returns the `Teams` (its `Sweep` joins main.ts's). */
export function mountTeams({ db, mux, auth, signedIn, tools, assets, mailer, Origin }: TeamsDeps): Teams {
  const events = new EventStore(db);
  const teams = create({
    DB: db,
    Sessions: auth.Sessions,
    Events: events,
    Origin,
    TeamsPath: "/teams",
    JoinPath: "/teams/join",
    SigninPath: "/signin",
    TeamFrom: (req) => PathValue(req, "team"),
    JoinPage: (req, res, invitation) => joinPage(req, res, assets, render, invitation),
    RefusalPage: (req, res, refusal) => refusalPage(req, res, assets, render, refusal),
    Mailer: mailer,
  });
  mountTeamPages({ mux, signedIn, teams, assets, shell: render });

  // The team's task list: step 6's mountResource, given the Teams that decides who may read and write.
  const english = NewLocales(["en"], "en", undefined, LOCALES_DIR);
  mountResource(tasks, {
    db,
    mux,
    tools,
    events,
    origin: Origin,
    requireSession: auth.RequireSession,
    ctxFrom,
    label: (key) => english.T("en", key),
    teams,
  });
  return teams;
}
