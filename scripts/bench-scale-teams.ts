/*
 * bench-scale's `teams` scenario (issue 38, item 9): does a team's size
 * cost its members anything? One database holds a team of 3 members with
 * 10² tasks and one of 1,000 members with 10⁵ (TEAMS), the signed-in
 * person a member of both; each point measures, for one team, the demo's
 * task list page 1 (`GET /teams/{team}/tasks`), the membership check
 * every team request begins with (`Teams.roleOf`, in-process, paced at
 * BENCH_RATE) and a tool call (`POST /api/tools/tasks_list` with the
 * team, a read token of its own each). The largest ÷ smallest ratio is
 * the large team's cost over the small one's. BENCH_SCALE_DIVISOR divides
 * the large team's members and tasks (at least the small team's).
 */
import { create as createTeams, type Teams } from "../lib/teams/index.ts";
import { Sessions } from "../lib/session/index.ts";
import { ownerTag, searchRow } from "../lib/manifest/search.ts";
import {
  RATE,
  SECONDS,
  SUBJECT,
  UUID,
  UUIDS,
  found,
  measure,
  paced,
  report,
  scaled,
  seedRange,
  serve,
  sizeLabel,
  timed,
  tokenPool,
  type Point,
  type Served,
} from "./bench-scale-kit.ts";

/** The small and the large team: members (the person among them) and tasks. */
export const TEAMS: readonly { members: number; tasks: number }[] = [
  { members: 3, tasks: 100 },
  { members: Math.max(3, scaled(1_000)), tasks: Math.max(100, scaled(100_000)) },
];

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

/**
 * Inserts `count` tasks of `team`, newest `newest - i`, authored by its
 * members in turn, titles "task <i mod 997>", and their search rows as the
 * write path makes them (searchRow with the team's tag), in one transaction.
 */
function seedTasks(s: Served, team: string, count: number, newest: number): void {
  const last = (s.db.prepare("SELECT ifnull(max(rowid), 0) AS n FROM tasks").get() as { n: number }).n;
  s.db.transaction(() => {
    seedRange(
      s.db,
      count,
      `${UUIDS} INSERT INTO tasks (id, team, author, created_at, updated_at, title, done, assignee)
       SELECT ${UUID}, ?, ?, ? - i, ? - i, 'task ' || (i % 997), i % 2, '' FROM u ORDER BY i`,
      team,
      SUBJECT,
      newest,
      newest,
    );
    s.db
      .prepare("INSERT INTO tasks_search (rowid, body) SELECT rowid, ? || char(10) || title FROM tasks WHERE rowid > ?")
      .run(ownerTag(team), last);
  })();
  const seeded = s.db
    .prepare("SELECT t.team, t.title, s.body FROM tasks t JOIN tasks_search s ON s.rowid = t.rowid WHERE t.rowid = ?")
    .get(last + 1) as { team: string; title: string; body: string } | undefined;
  if (seeded === undefined || seeded.body !== searchRow(seeded.team, [seeded.title]))
    throw new Error("bench: a seeded search row differs from searchRow's");
}

/** The `teams` scenario: see the header. */
export async function teams(dir: string): Promise<void> {
  const s = await serve(dir);
  const now = Date.now();
  const seeded: [string, string][] = [];
  for (const [n, size] of TEAMS.entries()) {
    const label = `${sizeLabel(size.members)} members, ${sizeLabel(size.tasks)} tasks`;
    await timed(`a team of ${size.members} members and ${size.tasks} tasks`, () => {
      const id = seedTeam(s, n, size.members);
      seedTasks(s, id, size.tasks, now);
      seeded.push([label, id]);
    });
  }
  s.db.pragma("wal_checkpoint(TRUNCATE)");
  const component = teamsOn(s);
  const pool = tokenPool(s.db, TEAMS.length * (Math.round(RATE) + Math.round(RATE * SECONDS)));
  const list: [string, Point][] = [];
  const membership: [string, Point][] = [];
  const tool: [string, Point][] = [];
  for (const [label, id] of seeded) {
    if (component.roleOf(id, SUBJECT) !== "member") throw new Error(`bench: ${SUBJECT} is not a member of ${id}`);
    list.push([
      label,
      await measure(s.base, () => ({ method: "GET", path: `/teams/${id}/tasks`, headers: { cookie: s.cookie }, judge: found })),
    ]);
    membership.push([label, await paced(() => component.roleOf(id, SUBJECT), SECONDS)]);
    tool.push([
      label,
      await measure(s.base, () => ({
        method: "POST",
        path: "/api/tools/tasks_list",
        headers: { authorization: `Bearer ${pool()}`, "content-type": "application/json", origin: s.origin },
        body: JSON.stringify({ team: id }),
        judge: (status, body) => (status !== 200 ? String(status) : "result" in JSON.parse(body) ? "200" : "200 without a result"),
      })),
    ]);
  }
  report("teams", "GET /teams/{team}/tasks, list page 1", list);
  report("teams", "Teams.roleOf(team, person) in-process (the membership check)", membership);
  report("teams", "POST /api/tools/tasks_list {team}", tool);
  await s.close();
}
