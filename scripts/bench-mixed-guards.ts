/*
 * The guards of issue 44 (item 4), run by scripts/bench-mixed.ts on its copy of the seeded database, in process: each
 * check the next features add to a request, beside the same work without it, and its share of the request it sits in
 * (latch's CPU cost a request from the baselines, when they ran). Rounds of GUARD_CALLS calls, interleaved; medians.
 *
 *   membership       `Teams.roleOf(team, person)`, what a team's page and tool call begin with, beside nothing;
 *                    its share of a list page. Target: under 5% of a list page.
 *   audit hash       the chain's own work in an append, `eventHash` (SHA-256 over the previous hash and the event's
 *                    columns), beside `EventStore.appendAudit` whole (a transaction each, which reads the previous
 *                    hash with the sequence it reads anyway); the write call appends three. Also printed: the same
 *                    event appended by a bare INSERT without links, for what the store's append costs besides.
 *                    Target: the three hashes under 5% of a write call.
 *   standing lookup  `StandingApprovals.spend` (the matching approval found and one call taken, in one UPDATE) beside
 *                    nothing; its share of a write call. Target: under 5% of a write call.
 */
import { OpenDB } from "../lib/db/index.ts";
import { EventStore, auditStream } from "../lib/events/index.ts";
import { eventHash, GENESIS } from "../lib/events/chain.ts";
import { Approvals, StandingApprovals, ToolRegistry } from "../lib/agent/index.ts";
import { Sessions } from "../lib/session/index.ts";
import { create as createTeams } from "../lib/teams/index.ts";
import { personOf, teamOf, WRITE_TOOL } from "./bench-mixed-seed.ts";

const GUARD_CALLS = Number(process.env["BENCH_GUARD_CALLS"] ?? 2000);
const ROUNDS = 5;
const SHARE_TARGET = 0.05;

/** µs a call of each of `fns`, median of ROUNDS rounds interleaved. */
function timeEach(fns: (() => void)[]): number[] {
  const per: number[][] = fns.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    fns.forEach((fn, i) => {
      const start = performance.now();
      for (let c = 0; c < GUARD_CALLS; c++) fn();
      per[i]?.push(((performance.now() - start) * 1000) / GUARD_CALLS);
    });
  }
  return per.map((xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0);
}

function line(name: string, us: number, of: number | undefined, ofName: string): void {
  const share =
    of === undefined ? "" : `: ${((us / of) * 100).toFixed(1)}% of ${ofName} (${of.toFixed(0)} µs), target < ${SHARE_TARGET * 100}%`;
  console.log(
    `  ${name.padEnd(44)} ${us.toFixed(2).padStart(8)} µs${share}${of !== undefined && us / of >= SHARE_TARGET ? " MISSED" : ""}`,
  );
}

export async function guards(path: string, costs: Record<string, number>): Promise<void> {
  const db = OpenDB(path);
  const list = Object.entries(costs).find(([name]) => name.startsWith("list"))?.[1];
  const write = Object.entries(costs).find(([name]) => name.startsWith("write"))?.[1];
  const origin = "http://localhost";
  const teams = createTeams({
    DB: db,
    Sessions: new Sessions(db, { Origin: origin }),
    Origin: origin,
    TeamsPath: "/teams",
    JoinPath: "/teams/join",
    SigninPath: "/signin",
    TeamFrom: () => undefined,
    JoinPage: (_req, res) => void res.end(),
  });
  const member = personOf(1);
  if (teams.roleOf(teamOf(0), member) !== "member") throw new Error("bench-mixed: the seeded team has no such member");
  const [role] = timeEach([() => teams.roleOf(teamOf(0), member)]);
  line("membership check (Teams.roleOf)", role ?? 0, list, "a list page");

  const events = new EventStore(db);
  const subject = personOf(2);
  const stream = auditStream(subject);
  const last = db.prepare<[string], { seq: number; hash: Buffer | null }>(
    "SELECT seq, hash FROM events WHERE stream = ? ORDER BY seq DESC LIMIT 1",
  );
  const bare = db.prepare(
    "INSERT INTO events (stream, seq, type, data, actor, subject, at, prev_hash, hash, erased) VALUES (?, ?, ?, ?, ?, ?, ?, NULL, NULL, NULL)",
  );
  const data = { tool: WRITE_TOOL, outcome: "ok" };
  const unchained = db.transaction(() => {
    const seq = (last.get(stream)?.seq ?? 0) + 1;
    bare.run(stream, seq, "bench.appended", JSON.stringify(data), "human", subject, Date.now());
  });
  // The hash of an event as an append would make it (its stream's head before the run, its own columns).
  const head = last.get(stream);
  const row = {
    stream,
    seq: (head?.seq ?? 0) + 1,
    type: "bench.appended",
    data: JSON.stringify(data),
    actor: "human",
    subject,
    at: Date.now(),
  };
  // Each round's unchained rows are followed by chained ones: appendAudit links to the last row's hash, NULL or not. The
  // hash alone is timed in the same rounds, so its share compares times taken side by side.
  const [chained, plain, hash] = timeEach([
    () => events.appendAudit({ Type: "bench.appended", Data: data, Actor: { String: () => "human" }, Subject: subject }),
    () => unchained(),
    () => eventHash(head?.hash ?? GENESIS, row),
  ]);
  line("audit append with its hash (appendAudit)", chained ?? 0, undefined, "");
  line("  its hash (eventHash)", hash ?? 0, chained, "the append");
  line("  a bare INSERT of the event, no links", plain ?? 0, undefined, "");
  line("the hashes of a write call's 3 events", 3 * (hash ?? 0), write, "a write call");

  const approvals = new Approvals(db);
  const standing = new StandingApprovals(db, { Approvals: approvals, Tools: new ToolRegistry() });
  const owner = personOf(3);
  // One standing approval with calls enough for every round (the seeded ones allow 20).
  db.prepare("UPDATE agent_standing_approvals SET remaining = 1000000000 WHERE subject = ?").run(owner);
  const target = { Record: undefined, Fields: ["label", "amount", "category"], Context: "" };
  const [spend] = timeEach([
    () => {
      if (standing.spend(owner, "bench-write-3", WRITE_TOOL, target) === undefined)
        throw new Error("bench-mixed: no standing approval matched");
    },
  ]);
  line("standing approval lookup (spend)", spend ?? 0, write, "a write call");
  db.close();
}
