/*
 * The teams suites' application: the sign-in harness (signin-app.ts: the
 * runtime, a real SMTP server, a fake clock) with the events and teams
 * schemas and the teams handlers mounted as the demo mounts them, lib/account
 * with the teams' rows, and
 * helpers to act as a signed-in person.
 */
import type { TestContext } from "node:test";
import type { AccountRows, DB, Step } from "../../lib/db/index.ts";
import type { RenderFunc } from "../../lib/index.ts";
import type { Mux } from "../../lib/router/index.ts";
import type { Signin } from "../../lib/signin/index.ts";
import * as account from "../../lib/account/index.ts";
import { EventStore, Schema as eventsSchema } from "../../lib/events/index.ts";
import { PathValue } from "../../lib/router/index.ts";
import * as teams from "../../lib/teams/index.ts";
import { FakeClock } from "../_support/clock.ts";
import type { CookieJar, TestResponse } from "../_support/http-client.ts";
import { startSigninApp, type SigninApp } from "../_support/signin-app.ts";

/** The public origin of an application with a mounted resource. */
export const ORIGIN = "http://app.test";

/** The application and its teams component. */
export interface TeamsApp extends SigninApp {
  teams: teams.Teams;
  events: EventStore;
  /** Posts `form` to `path` as the person of `jar`. */
  post(jar: CookieJar, path: string, form?: Record<string, string>): Promise<TestResponse>;
  /** Creates a team as `jar`'s person; returns its id. */
  createTeam(jar: CookieJar, name?: string): Promise<string>;
  /** Invites `address` as `role` and returns the emailed link's token. */
  invite(jar: CookieJar, team: string, address: string, role: teams.Role): Promise<string>;
  /** Rows of `team`'s event stream: type, subject (who acted) and data, a person's key shown as their address while it has one. */
  stream(team: string): { type: string; subject: string; actor: string; data: Record<string, unknown> }[];
  /** The data of `team`'s events as stored: a person is a key of team_people there, never an address. */
  raw(team: string): string;
}

/** Starts the application; `limits` overrides the invitation limits. */
export async function startTeamsApp(
  t: TestContext,
  options: {
    limits?: teams.InviteLimits;
    /** More schema steps (a team resource's), applied after the teams'. */
    schema?: readonly Step[];
    /** The runtime's `Render`. */
    render?: RenderFunc;
    /** Mounts more on the application (a team resource), with its events and teams; returns more account rows. */
    mount?: (mux: Mux, auth: Signin, db: DB, events: EventStore, component: teams.Teams) => AccountRows[] | void;
  } = {},
): Promise<TeamsApp> {
  const built: { teams?: teams.Teams; events?: EventStore } = {};
  const clock = new FakeClock();
  const app = await startSigninApp(t, {
    schema: [...eventsSchema, ...teams.Schema, ...account.Schema, ...(options.schema ?? [])],
    ...(options.render !== undefined && { render: options.render }),
    // A mounted resource refuses another origin's writes: one origin for the runtime, the teams and the resource.
    ...(options.mount !== undefined && { origin: ORIGIN }),
    extend: (mux, auth, db, logger, mailer) => {
      const events = new EventStore(db, { Clock: clock });
      const component = teams.create({
        DB: db,
        Sessions: auth.Sessions,
        Events: events,
        Origin: "http://app.test",
        TeamsPath: "/teams",
        JoinPath: "/teams/join",
        SigninPath: "/signin",
        TeamFrom: (req) => PathValue(req, "team"),
        JoinPage: (_req, res, invitation) => void res.end(JSON.stringify(invitation)),
        Clock: clock,
        Logger: logger,
        ...(mailer !== undefined && { Mailer: mailer }),
        ...(options.limits !== undefined && { InviteLimits: options.limits }),
      });
      built.teams = component;
      built.events = events;
      const more = options.mount?.(mux, auth, db, events, component) ?? [];
      // lib/account with the teams' rows: a change of address, the export, the deletion.
      const settings = account.create({
        DB: db,
        Signin: auth,
        Origin: "http://app.test",
        InstanceKey: "teams-harness-instance-key-0123456789abcdef",
        Rows: [teams.accountRows(db), ...more],
        AccountPath: "/account/security",
        SigninPath: "/signin",
        ConfirmPath: "/account/address/confirm",
        ReversePath: "/account/address/undo",
        Clock: clock,
        Logger: logger,
      });
      mux.With(auth.RequireSession).Handle("POST /account/delete", settings.Delete);
      mux.With(auth.RequireSession).Handle("GET /account/export", settings.Export);
      mux.Handle("POST /teams", component.Create);
      mux.Handle("GET /teams/join", component.Join);
      mux.Handle("POST /teams/join", component.Accept);
      mux.Handle("POST /teams/{team}/rename", component.Rename);
      mux.Handle("POST /teams/{team}/delete", component.Delete);
      mux.Handle("POST /teams/{team}/invitations", component.Invite);
      mux.Handle("POST /teams/{team}/invitations/revoke", component.Revoke);
      mux.Handle("POST /teams/{team}/members/role", component.SetRole);
      mux.Handle("POST /teams/{team}/members/remove", component.Remove);
      mux.Handle("POST /teams/{team}/leave", component.Leave);
    },
    clock,
  });
  if (built.teams === undefined || built.events === undefined) throw new Error("teams harness: not mounted");
  const post = (jar: CookieJar, path: string, form: Record<string, string> = {}): Promise<TestResponse> =>
    app.request("POST", path, { jar, form });
  // A team event names a person by their key in team_people (lib/teams store.ts); shown here as the address it maps to.
  const addressOf = app.db.prepare<[string], string>("SELECT subject FROM team_people WHERE key = ?").pluck();
  const people = (data: Record<string, unknown>): Record<string, unknown> =>
    Object.fromEntries(
      Object.entries(data).map(([k, v]) => [k, (k === "member" || k === "inviter") && typeof v === "string" ? (addressOf.get(v) ?? v) : v]),
    );
  return {
    ...app,
    teams: built.teams,
    events: built.events,
    post,
    async createTeam(jar, name = "Workshop") {
      const made = await post(jar, "/teams", { name });
      const id = /^\/teams\/([A-Za-z0-9_-]{12})$/.exec(made.location ?? "")?.[1];
      if (id === undefined) throw new Error(`createTeam answered ${made.status} ${made.location ?? ""} ${made.body}`);
      return id;
    },
    async invite(jar, team, address, role) {
      const before = app.smtp?.messages.length ?? 0;
      const sent = await post(jar, `/teams/${team}/invitations`, { email: address, role });
      if (sent.location !== `/teams/${team}?invited=1`) throw new Error(`invite answered ${sent.status} ${sent.body}`);
      const mail = await app.smtp!.waitForMessage(
        (m) => app.smtp!.messages.indexOf(m) >= before && m.to.includes(address.trim().toLowerCase()),
      );
      const token = /\/teams\/join\?token=([A-Za-z0-9_-]{43})/.exec(mail.parsed.text ?? "")?.[1];
      if (token === undefined) throw new Error(`no invitation link in: ${mail.parsed.text ?? ""}`);
      return token;
    },
    raw(team) {
      return app.db.prepare("SELECT data FROM events WHERE stream = ?").pluck().all(`team:${team}`).join("\n");
    },
    stream(team) {
      return (
        app.db.prepare("SELECT type, subject, actor, data FROM events WHERE stream = ? ORDER BY seq").all(`team:${team}`) as {
          type: string;
          subject: string;
          actor: string;
          data: string;
        }[]
      ).map((r) => ({ ...r, data: people(JSON.parse(r.data) as Record<string, unknown>) }));
    },
  };
}
