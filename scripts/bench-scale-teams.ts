/*
 * bench-scale's `teams` scenario (issue 38, item 9): does a team's size
 * cost its members anything? One database holds a team of 3 members and
 * one of 1,000 (TEAM_SIZES), the signed-in person a member of both; each
 * point measures, for one team, the membership check every team request
 * begins with (`Teams.roleOf`, in-process, paced at BENCH_RATE). The
 * largest ÷ smallest ratio is the large team's cost over the small one's.
 * BENCH_SCALE_DIVISOR divides the large team's members (at least 3).
 */
import { create as createTeams, type Teams } from "../lib/teams/index.ts";
import { Sessions } from "../lib/session/index.ts";
import { SECONDS, SUBJECT, paced, report, scaled, seedRange, serve, sizeLabel, timed, type Point, type Served } from "./bench-scale-kit.ts";

/** Members of the small and the large team, the person among them. */
export const TEAM_SIZES: readonly number[] = [3, Math.max(3, scaled(1_000))];

/** A team id as lib/teams makes them (12 base64url characters), numbered so the seeding is repeatable. */
const teamID = (n: number): string => `benchteam${String(n).padStart(3, "0")}`;

/** Inserts team `n` with `members` members: the person (role `member`, who may read and write) and others `team<n>-<i>@example.com`. */
function seedTeam(s: Served, n: number, members: number): string {
  const id = teamID(n);
  const now = Date.now();
  s.db.prepare("INSERT INTO teams (id, name, created_at) VALUES (?, ?, ?)").run(id, `Bench team of ${members}`, now);
  s.db.prepare("INSERT INTO team_members (team, subject, role, joined_at) VALUES (?, ?, 'member', ?)").run(id, SUBJECT, now);
  seedRange(
    s.db,
    members - 1,
    `INSERT INTO team_members (team, subject, role, joined_at)
     SELECT ?, 'team' || ? || '-' || i || '@example.com', CASE WHEN i = 0 THEN 'owner' ELSE 'member' END, ? FROM n`,
    id,
    n,
    now,
  );
  return id;
}

/** The teams component on the served database, as the demo creates it: `roleOf` is what is measured. */
function teamsOn(s: Served): Teams {
  return createTeams({
    DB: s.db,
    Sessions: new Sessions(s.db, { Origin: s.origin }),
    Origin: s.origin,
    TeamsPath: "/teams",
    JoinPath: "/teams/join",
    SigninPath: "/signin",
    TeamFrom: () => undefined,
    JoinPage: (_req, res) => void res.end(),
  });
}

/** The `teams` scenario: see the header. */
export async function teams(dir: string): Promise<void> {
  const s = await serve(dir);
  const ids: [string, string][] = [];
  for (const [n, members] of TEAM_SIZES.entries()) {
    await timed(`a team of ${members} members`, () => void ids.push([`${sizeLabel(members)} members`, seedTeam(s, n, members)]));
  }
  s.db.pragma("wal_checkpoint(TRUNCATE)");
  const component = teamsOn(s);
  const membership: [string, Point][] = [];
  for (const [label, id] of ids) {
    if (component.roleOf(id, SUBJECT) !== "member") throw new Error(`bench: ${SUBJECT} is not a member of ${id}`);
    membership.push([label, await paced(() => component.roleOf(id, SUBJECT), SECONDS)]);
  }
  report("teams", "Teams.roleOf(team, person) in-process (the membership check)", membership);
  await s.close();
}
