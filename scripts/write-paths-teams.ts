/*
 * The write paths of the demo's team routes (scripts/write-paths.ts
 * describes the table): lib/teams' handlers, each driven in the person's
 * newest team, the team deleted last. Their events go to the team's own
 * stream `team:<id>` (lib/teams README, "Events").
 */
import type { Driver, WritePath } from "./write-paths.ts";

const TEAMS_ATOMIC = "test/teams/teams.test.ts";

/** What the team rows share with the rest of the table. */
export interface TeamDrives {
  /** The person the drives act as. */
  address: string;
  /** The version a record's page carries in its form. */
  version: (d: Driver, route: string, id: string) => Promise<string>;
  /** The failure-injection test of a record's event. */
  recordAtomic: string;
  /** Imports a CSV into the list at a route: upload, confirm, the job followed to its end. */
  imported: (route: (d: Driver) => string, csv: string) => (d: Driver) => Promise<unknown>;
  /** Why an import's upload records no change. */
  uploadOnly: string;
}

/** The team routes' rows of WRITE_PATHS, in the order they are driven: the team's, its task list's, the team's deletion. */
export function teamWritePaths({ address, version, recordAtomic, imported, uploadOnly }: TeamDrives): WritePath[] {
  // The person's newest team, as the drives act in it, and its newest task.
  const team = (d: Driver): string =>
    String(d.one("SELECT team FROM team_members WHERE subject = ? ORDER BY joined_at DESC LIMIT 1", address)?.["team"] ?? "");
  const task = (d: Driver): string =>
    String(d.one("SELECT id FROM tasks WHERE team = ? ORDER BY rowid DESC LIMIT 1", team(d))?.["id"] ?? "");
  return [
    {
      name: "POST /teams",
      drive: (d) => d.post("/teams", { name: "Workshop" }),
      event: { type: "team.created", actor: "human" },
      atomic: TEAMS_ATOMIC,
    },
    {
      name: "POST /teams/{team}/rename",
      drive: (d) => d.post(`/teams/${team(d)}/rename`, { name: "Loans" }),
      event: { type: "team.renamed", actor: "human" },
      atomic: TEAMS_ATOMIC,
    },
    {
      name: "POST /teams/{team}/invitations",
      drive: (d) => d.post(`/teams/${team(d)}/invitations`, { email: "grace-writes@example.com", role: "member" }),
      event: { type: "team.invited", actor: "human" },
      atomic: TEAMS_ATOMIC,
    },
    {
      name: "POST /teams/{team}/invitations/revoke",
      drive: async (d) => {
        const id = (/data-invitation="([A-Za-z0-9_-]+)"/.exec((await d.get(`/teams/${team(d)}`)).body) ?? [])[1] ?? "";
        return d.post(`/teams/${team(d)}/invitations/revoke`, { invitation: id });
      },
      event: { type: "team.invitation_revoked", actor: "human" },
      atomic: TEAMS_ATOMIC,
    },
    {
      name: "POST /teams/join",
      none: "needs the link mailed to the invited address: test/teams/invitations.test.ts accepts it over SMTP and finds team.joined on team:<id>",
    },
    {
      name: "POST /teams/{team}/members/role",
      none: "needs a second member, who joins by the mailed link: test/teams/teams.test.ts finds team.role_changed with its actor",
    },
    {
      name: "POST /teams/{team}/members/remove",
      none: "needs a second member, who joins by the mailed link: test/teams/teams.test.ts finds team.member_removed with its actor",
    },
    {
      name: "POST /teams/{team}/leave",
      none: "the only owner cannot leave (409); a member who leaves appends team.left (test/teams/teams.test.ts)",
    },
    // The team's task list (the starter's tasks.ts): a record's event names the member who wrote it.
    {
      name: "POST /teams/{team}/tasks",
      drive: (d) => d.post(`/teams/${team(d)}/tasks`, { title: "Sharpen the chisels" }),
      event: { type: "tasks.created", actor: "human" },
      atomic: recordAtomic,
    },
    {
      name: "POST /teams/{team}/tasks/{id}",
      drive: async (d) => {
        const route = `/teams/${team(d)}/tasks`;
        const id = task(d);
        return d.post(`${route}/${id}`, { title: "Sharpen the chisels", done: "1", version: await version(d, route, id) });
      },
      event: { type: "tasks.updated", actor: "human" },
      atomic: recordAtomic,
    },
    {
      name: "POST /teams/{team}/tasks/bulk",
      drive: (d) => d.post(`/teams/${team(d)}/tasks/bulk`, { action: "set", field: "title", value: "Oil the chisels", ids: task(d) }),
      event: { type: "tasks.updated", actor: "human" },
      atomic: "test/manifest/bulk.test.ts",
    },
    {
      name: "POST /teams/{team}/tasks/{id}/delete",
      drive: async (d) => {
        const route = `/teams/${team(d)}/tasks`;
        const id = task(d);
        return d.post(`${route}/${id}/delete`, { version: await version(d, route, id) });
      },
      event: { type: "tasks.deleted", actor: "human" },
      atomic: recordAtomic,
    },
    // The demo's "Clear done tasks" job (examples/demo/clear-done.ts): MountedResource.For, as the person who started it.
    {
      name: "POST /teams/{team}/tasks/clear-done",
      drive: async (d) => {
        await d.post(`/teams/${team(d)}/tasks`, { title: "Sweep the shavings", done: "1" });
        const started = await d.post(`/teams/${team(d)}/tasks/clear-done`);
        // The job runs in the background: its status page stops saying "running" once it finished.
        while ((await d.get(started.location ?? "")).body.includes('data-status="running"'))
          await new Promise((turn) => setImmediate(turn));
      },
      event: { type: "tasks.deleted", actor: "human" },
      atomic: recordAtomic,
    },
    {
      name: "POST /teams/{team}/tasks/import",
      drive: (d) => d.upload(`/teams/${team(d)}/tasks/import`, "import.csv", "title\nPlane the lid\n"),
      none: uploadOnly,
    },
    {
      name: "POST /teams/{team}/tasks/import/confirm",
      drive: imported((d) => `/teams/${team(d)}/tasks`, "title\nPlane the lid\n"),
      event: { type: "tasks.created", actor: "human" },
      atomic: recordAtomic,
    },
    {
      name: "POST /teams/{team}/delete",
      drive: (d) => d.post(`/teams/${team(d)}/delete`, { name: "Loans" }),
      event: { type: "team.deleted", actor: "human" },
      atomic: TEAMS_ATOMIC,
    },
  ];
}
