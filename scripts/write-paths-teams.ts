/*
 * The write paths of the demo's team routes (scripts/write-paths.ts
 * describes the table): lib/teams' handlers, each driven in the person's
 * newest team, the team deleted last. Their events go to the team's own
 * stream `team:<id>` (lib/teams README, "Events").
 */
import type { Driver, WritePath } from "./write-paths.ts";

const TEAMS_ATOMIC = "test/teams/teams.test.ts";

/** The team routes' rows of WRITE_PATHS, in the order they are driven, for the person `address` the drives act as. */
export function teamWritePaths(address: string): WritePath[] {
  // The person's newest team, as the drives act in it.
  const team = (d: Driver): string =>
    String(d.one("SELECT team FROM team_members WHERE subject = ? ORDER BY joined_at DESC LIMIT 1", address)?.["team"] ?? "");
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
    {
      name: "POST /teams/{team}/delete",
      drive: (d) => d.post(`/teams/${team(d)}/delete`, { name: "Loans" }),
      event: { type: "team.deleted", actor: "human" },
      atomic: TEAMS_ATOMIC,
    },
  ];
}
