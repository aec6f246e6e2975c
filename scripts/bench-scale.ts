/*
 * `node dist/scripts/bench-scale.js [scenario...]`: does a request cost
 * more when the database is big (issue 27)? The demo, built in this
 * process on a database file seeded at three sizes, serves the same
 * requests at each size at a fixed offered load; the report gives median
 * and p99 latency per size and the ratio of the largest size to the
 * smallest. Scenarios (each runnable alone, all by default):
 *
 *   sessions   GET /api/whoami (RequireSession) with 10³/10⁵/10⁶ live
 *              sessions, 10⁶ expired ones beside the largest
 *   signin     POST /signin and GET /auth/verify (an unknown token) with
 *              10³/10⁵/10⁶ link rows and as many rate-limit rows
 *   sweep      Sweep over 10⁶ (BENCH_SWEEP_ROWS) expired sessions, links and
 *              rate rows: total time and the event loop's longest wait
 *   resources  one person owning 10²/10⁴/10⁵ expenses among 10⁶ rows of
 *              1,000 people: list page 1 (and page 500 where it exists)
 *              with a filter and a sort, a contains filter, search (q:
 *              a word in every record, a rare one, a short one, and one in
 *              half of others' records but few of the person's), record
 *              page, create; and the agents' comparison: the same newest
 *              page from a plain node:http handler, over
 *              POST /api/tools/expenses_list and over MCP tools/call, each
 *              request with a token of its own (tokenPool), every answer
 *              counted by its status and, for MCP, its body
 *   events     /account/activity, EventStore.latest and appendAudit with
 *              10³/10⁵/10⁶ events in the person's stream and BENCH_EVENTS
 *              (10⁷) in all
 *   teams      a team of 1,000 members and 10⁵ tasks beside a team of 3
 *              and 10², the person in both: the list page, the membership
 *              check (Teams.roleOf) and a tool call, per team
 *              (scripts/bench-scale-teams.ts)
 *   cold       the shipped unit's cold start with a BENCH_COLD_BYTES (1 GB)
 *              database beside an empty one (needs `npm run build`'s bundle)
 *
 * Seeding runs inside SQLite: one INSERT … SELECT from a recursive CTE per
 * batch, in one transaction, search rows with their records (each
 * starting with its owner's tag, as the write path writes it); each
 * seeding reports its time.
 * Each point also reports the database file's size. The client is in the
 * same process (requests at BENCH_RATE per second, default 200, for
 * BENCH_SECONDS, default 3, after a 1-second warm-up; latency from a
 * request's send to its last byte). Results: BENCHMARKS.md "(k) Scale: cost as the data grows".
 *
 * BENCH_SCALE_DIVISOR (default 1) divides every size and seeding count
 * (the sizes above, the other people's records, BENCH_SWEEP_ROWS,
 * BENCH_EVENTS, BENCH_COLD_BYTES; at least one of each): 100 runs every
 * scenario to its table in seconds, for a quick look at a change; the rows
 * then name the sizes seeded. The 1,000 people stay 1,000.
 */
import { mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { OpenDB, type DB } from "../lib/db/index.ts";
import { EventStore, auditStream } from "../lib/events/index.ts";
import { newLogger } from "../lib/http/index.ts";
import { HashToken, NewToken } from "../lib/session/index.ts";
import * as signin from "../lib/signin/index.ts";
import { LIST_PAGE_SIZE } from "../lib/manifest/list.ts";
import { listen } from "../test/_support/server.ts";
import { SHIPPED_DEMO, coldStart, coldServers } from "./bench-cold.ts";
import { teams } from "./bench-scale-teams.ts";
import {
  DIVISOR,
  RATE,
  SECONDS,
  SEQUENTIAL,
  SUBJECT,
  WORD,
  UUID,
  UUIDS,
  agent,
  found,
  judgeRPC,
  mb,
  measure,
  paced,
  perMillion,
  report,
  rows,
  scaled,
  seedExpenses,
  seedRange,
  sequential,
  serve,
  sizes,
  timed,
  tokenPool,
  type Point,
} from "./bench-scale-kit.ts";

/** Expired rows of each kind the sweep scenario deletes (BENCH_SWEEP_ROWS, default 10⁶). */
const SWEEP_ROWS = scaled(Number(process.env["BENCH_SWEEP_ROWS"] ?? 1_000_000));

function seedSessions(db: DB, count: number, expired: boolean): void {
  const now = Date.now();
  seedRange(
    db,
    count,
    `${UUIDS} INSERT INTO sessions (token_hash, subject, method, auth_time, created_at, last_seen, expires_at, public_id, device)
     SELECT lower(hex(randomblob(32))), 'person' || (i % 100000) || '@example.com', 'magiclink', ?, ?, ?, ?, ${UUID}, '' FROM u`,
    now,
    now,
    now,
    expired ? now - 1 : now + 86_400_000,
  );
}

/** Inserts `count` sign-in links (every other one expired) and as many rate rows of the last hour, numbered from `from`. */
function seedSignin(db: DB, from: number, count: number, now: number): void {
  seedRange(
    db,
    count,
    `INSERT INTO signin_links (token_hash, purpose, address, expires_at)
     SELECT lower(hex(randomblob(32))), 'signin', 'person' || ((? + i) % 100000) || '@example.com', ? + CASE WHEN i % 2 = 0 THEN -1 ELSE 600000 END FROM n`,
    from,
    now,
  );
  seedRange(
    db,
    count,
    `INSERT INTO signin_rate_events (bucket, at) SELECT 'address:person' || ((? + i) % 100000), ? - ((? + i) % 3600000) FROM n`,
    from,
    now,
    from,
  );
}

const SIZES = sizes(1_000, 100_000, 1_000_000);
const LARGEST = SIZES[SIZES.length - 1]?.[1] ?? 0;

async function sessions(dir: string): Promise<void> {
  const s = await serve(dir);
  const points: [string, Point][] = [];
  let have = 0;
  for (const [label, size] of SIZES) {
    await timed(`${size - have} live sessions`, () => seedSessions(s.db, size - have, false));
    have = size;
    if (size === LARGEST) await timed(`${size} expired sessions`, () => seedSessions(s.db, size, true));
    s.db.pragma("wal_checkpoint(TRUNCATE)");
    console.log(`  ${label}: ${mb(s.path)}`);
    points.push([label, await measure(s.base, () => ({ method: "GET", path: "/api/whoami", headers: { cookie: s.cookie } }))]);
  }
  report("sessions", "GET /api/whoami (RequireSession)", points);
  await s.close();
}

async function signinScenario(dir: string): Promise<void> {
  const s = await serve(dir);
  const begin: [string, Point][] = [];
  const verify: [string, Point][] = [];
  let have = 0;
  const now = Date.now();
  for (const [label, size] of SIZES) {
    await timed(`${size - have} links and rate rows`, () => seedSignin(s.db, have, size - have, now));
    have = size;
    s.db.pragma("wal_checkpoint(TRUNCATE)");
    console.log(`  ${label}: ${mb(s.path)}`);
    begin.push([
      label,
      await measure(s.base, (i) => ({
        method: "POST",
        path: "/signin",
        headers: { origin: s.origin, "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": `198.51.100.${i % 250}` },
        body: `email=bench${i}%40example.com`,
      })),
    ]);
    verify.push([label, await measure(s.base, () => ({ method: "GET", path: `/auth/verify?token=${NewToken()}` }))]);
  }
  report("signin", "POST /signin", begin);
  report("signin", "GET /auth/verify (unknown token)", verify);
  await s.close();
}

async function sweep(dir: string): Promise<void> {
  const db = OpenDB(join(dir, "sweep.db"));
  const schema = await import("../examples/demo/app.ts");
  const { applySchema } = await import("../lib/db/index.ts");
  applySchema(db, schema.schema);
  const now = Date.now();
  await timed(`${SWEEP_ROWS} expired sessions, links and rate rows`, () => {
    seedSessions(db, SWEEP_ROWS, true);
    seedRange(
      db,
      SWEEP_ROWS,
      "INSERT INTO signin_links (token_hash, purpose, address, expires_at) SELECT lower(hex(randomblob(32))), 'signin', 'x@example.com', ? FROM n",
      now - 1,
    );
    seedRange(db, SWEEP_ROWS, "INSERT INTO signin_rate_events (bucket, at) SELECT 'ip:203.0.113.9', ? FROM n", now - 86_400_000);
  });
  const auth = signin.create({
    DB: db,
    Origin: "http://localhost",
    InstanceKey: "bench-scale-sweep-instance-key-not-secret",
    SigninPath: "/signin",
    SignedInPath: "/account",
    Logger: newLogger({ stream: new Writable({ write: (_c, _e, d) => d() }) }),
  });
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const start = performance.now();
  const swept = await auth.Sweep(new Date());
  const total = performance.now() - start;
  delay.disable();
  const line = `| sweep | Sweep over ${SWEEP_ROWS} expired sessions, links and rate rows each | ${JSON.stringify(swept)} in ${(total / 1000).toFixed(1)} s; longest event-loop wait ${(delay.max / 1e6).toFixed(1)} ms, p99 ${(delay.percentile(99) / 1e6).toFixed(1)} ms | |`;
  rows.push(line);
  console.log(line);
  db.close();
}

/** Other people's expenses: 999 people of 901 records each (900,099 rows), each person's rows in a run. */
const OTHERS = 999;
const EACH = scaled(901);

/** A word in 1 of every OTHERS_WORD_EVERY labels of other people's records and 1 of every OWN_WORD_EVERY of the person's. */
const OTHERS_WORD_EVERY = 2;
const OWN_WORD_EVERY = 1000;

/**
 * A plain node:http handler doing the work of `expenses_list` without
 * latch: the bearer token's SHA-256, the token row, the person's newest
 * page, JSON. The baseline of the agents comparison.
 */
function plainList(db: DB): (req: IncomingMessage, res: ServerResponse) => void {
  const token = db.prepare("SELECT subject FROM agent_tokens WHERE revoked_at IS NULL AND token_hash = ? AND expires_at > ?");
  // The tool's page: LIST_PAGE_SIZE records and the next page's keyset.
  const page = db.prepare("SELECT * FROM expenses WHERE owner = ? ORDER BY created_at DESC, id DESC LIMIT ?");
  return (req, res) => {
    req.resume();
    req.on("end", () => {
      const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1] ?? "";
      const row = token.get(HashToken(bearer), Date.now()) as { subject: string } | undefined;
      if (row === undefined) {
        res.writeHead(401).end();
        return;
      }
      const items = page.all(row.subject, LIST_PAGE_SIZE + 1) as { id: string; created_at: number }[];
      const last = items.length > LIST_PAGE_SIZE ? items[LIST_PAGE_SIZE - 1] : undefined;
      const next = last === undefined ? null : Buffer.from(JSON.stringify([last.created_at, last.id])).toString("base64url");
      const body = JSON.stringify({ items: items.slice(0, LIST_PAGE_SIZE), next });
      res.writeHead(200, { "content-type": "application/json" }).end(body);
    });
  };
}

async function resources(dir: string): Promise<void> {
  const s = await serve(dir);
  const now = Date.now();
  await timed(`${OTHERS * EACH} expenses of ${OTHERS} other people and their search rows`, () => {
    const others = Array.from({ length: OTHERS }, (_, n) => `person${n}@example.com`);
    seedExpenses(s.db, OTHERS * EACH, `'person' || (i / ${EACH}) || '@example.com'`, [], others, now, OTHERS_WORD_EVERY);
  });
  const bearer = (token: string): Record<string, string> => ({
    authorization: `Bearer ${token}`,
    "content-type": "application/json",
    origin: s.origin,
  });
  const plain = await listen();
  (plain.server as Server).on("request", plainList(s.db));
  const owned = sizes(100, 10_000, 100_000);
  const byRequest = new Map<string, [string, Point][]>();
  const add = (label: string, size: string, p: Point): void => void byRequest.set(label, [...(byRequest.get(label) ?? []), [size, p]]);
  let have = 0;
  for (const [label, size] of owned) {
    // The person's newest records are the latest inserted: created_at above everyone's.
    await timed(`${size - have} of ${SUBJECT}'s expenses and their search rows`, () =>
      seedExpenses(s.db, size - have, "?", [SUBJECT], [SUBJECT], now + size, OWN_WORD_EVERY),
    );
    have = size;
    s.db.pragma("wal_checkpoint(TRUNCATE)");
    console.log(`  ${label}: ${mb(s.path)}, ${perMillion(s.path, OTHERS * EACH + size)} per 10⁶ records`);
    const record = (s.db.prepare("SELECT id FROM expenses WHERE owner = ? LIMIT 1").get(SUBJECT) as { id: string }).id;
    const cookie = { cookie: s.cookie };
    add(
      "list page 1 (amount ≥ 0.01, sorted by amount)",
      label,
      await measure(s.base, () => ({ method: "GET", path: "/expenses?amount_min=0.01&sort=amount&dir=desc", headers: cookie })),
    );
    // Page 500 begins after row 24,950 in the list's order: only the largest person has it.
    if (size > 500 * 50) {
      const cursorRow = s.db
        .prepare(
          "SELECT id, ifnull(amount, -1000000000000000000) AS amount FROM expenses WHERE owner = ? AND amount >= 1 ORDER BY ifnull(amount, -1000000000000000000) DESC, id DESC LIMIT 1 OFFSET ?",
        )
        .get(SUBJECT, 499 * 50 - 1) as { id: string; amount: number };
      const after = Buffer.from(JSON.stringify([cursorRow.amount, cursorRow.id])).toString("base64url");
      add(
        "list page 500 (keyset; only where it exists), beside page 1 of the same person",
        label,
        await measure(s.base, () => ({
          method: "GET",
          path: `/expenses?amount_min=0.01&sort=amount&dir=desc&after=${after}`,
          headers: cookie,
        })),
      );
    }
    add(
      "list, label contains “item 5”",
      label,
      await measure(s.base, () => ({ method: "GET", path: "/expenses?label=item+5", headers: cookie })),
    );
    // Search: the trigram index's matches in every person's records are looked up before the page is cut, so a word
    // every record holds is measured one request after another (SEQUENTIAL), not at the offered load.
    add(
      `search q=item (every record matches; ${SEQUENTIAL} one after another)`,
      label,
      await sequential(s.base, () => ({ method: "GET", path: "/expenses?q=item", headers: cookie, judge: found })),
    );
    add(
      "search q=421 (1 record in 997 matches)",
      label,
      await measure(s.base, () => ({ method: "GET", path: "/expenses?q=421", headers: cookie, judge: found })),
    );
    // A word in half of everyone else's records and 1 in 1,000 of the person's: does one person's search pay for
    // everyone's text? Measured one after another, as q=item.
    add(
      `search q=${WORD} (in 1 of ${OTHERS_WORD_EVERY} of others' records, 1 of ${OWN_WORD_EVERY} of the person's; ${SEQUENTIAL} one after another)`,
      label,
      await sequential(s.base, () => ({ method: "GET", path: `/expenses?q=${WORD}`, headers: cookie, judge: found })),
    );
    add(
      `search q=42 (under three characters: 1 record in 50; ${SEQUENTIAL} one after another)`,
      label,
      await sequential(s.base, () => ({ method: "GET", path: "/expenses?q=42", headers: cookie, judge: found })),
    );
    add("record page", label, await measure(s.base, () => ({ method: "GET", path: `/expenses/${record}`, headers: cookie })));
    add(
      "create (POST /expenses)",
      label,
      await measure(s.base, (i) => ({
        method: "POST",
        path: "/expenses",
        headers: { ...cookie, origin: s.origin, "content-type": "application/x-www-form-urlencoded" },
        body: `label=bench+${i}&amount=1.00`,
      })),
    );
    // Agents (item 5): the same newest page as a plain handler, over POST /api/tools and over MCP tools/call, each
    // request with a token of its own (tokenPool), so no answer is the rate limit's refusal.
    const perPoint = Math.round(RATE) + Math.round(RATE * SECONDS);
    const fresh = tokenPool(s.db, 3 * perPoint);
    add(
      "agents: plain node:http handler, same reads",
      label,
      await measure(plain.base, () => ({ method: "POST", path: "/", headers: bearer(fresh()), body: "{}" })),
    );
    add(
      "agents: POST /api/tools/expenses_list",
      label,
      await measure(s.base, () => ({
        method: "POST",
        path: "/api/tools/expenses_list",
        headers: bearer(fresh()),
        body: "{}",
        judge: (status, body) => (status !== 200 ? String(status) : "result" in JSON.parse(body) ? "200" : "200 without a result"),
      })),
    );
    add(
      "agents: MCP tools/call expenses_list",
      label,
      await measure(s.base, (i) => ({
        method: "POST",
        path: "/mcp",
        headers: { ...bearer(fresh()), accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: i, method: "tools/call", params: { name: "expenses_list", arguments: {} } }),
        judge: judgeRPC,
      })),
    );
  }
  for (const [label, points] of byRequest) report("resources", label, points);
  const plainPoints = byRequest.get("agents: plain node:http handler, same reads") ?? [];
  for (const name of ["agents: POST /api/tools/expenses_list", "agents: MCP tools/call expenses_list"]) {
    const cells = (byRequest.get(name) ?? []).map(([size, p], i) => {
      const base = plainPoints[i]?.[1];
      if (base === undefined) return "";
      // A ratio means the cost of the same work only when every answer on both sides was a 200 with the page.
      const served = [p, base].every((point) => /^200×\d+$/.test(point.statuses));
      return `${size}: ${(p.p50 / base.p50).toFixed(2)}× / ${(p.p99 / base.p99).toFixed(2)}×${served ? "" : " (not every answer a 200: no ratio of costs)"}`;
    });
    const line = `| agents | ${name} ÷ plain handler (median / p99) | ${cells.join(" · ")} | |`;
    rows.push(line);
    console.log(line);
  }
  await plain.close();
  await s.close();
}

/** Events in all (BENCH_EVENTS, default 10⁷): the person's stream grows to 10⁶, the rest are others' streams of 100. */
const EVENTS_TOTAL = scaled(Number(process.env["BENCH_EVENTS"] ?? 10_000_000));

/**
 * Inserts `count` events of others' streams, 100 a stream, numbered from
 * event `first` on so that rows arrive in the primary key's order; a
 * transaction per million.
 */
function seedOthersEvents(db: DB, first: number, count: number, now: number): void {
  const step = 1_000_000;
  for (let from = first; from < first + count; from += step) {
    seedRange(
      db,
      Math.min(step, first + count - from),
      `INSERT INTO events (stream, seq, type, data, actor, subject, at)
       SELECT printf('audit:p%08d@example.com', (? + i) / 100), (? + i) % 100 + 1, 'auth.signed_in', '{"method":"magiclink"}',
              CASE WHEN i % 5 = 0 THEN 'agent:bot' ELSE 'human' END, printf('p%08d@example.com', (? + i) / 100), ? FROM n`,
      from,
      from,
      from,
      now,
    );
  }
}

function seedStreamEvents(db: DB, stream: string, subject: string, from: number, count: number, now: number): void {
  seedRange(
    db,
    count,
    `INSERT INTO events (stream, seq, type, data, actor, subject, at)
     SELECT ?, ? + i + 1, 'auth.signed_in', '{"method":"magiclink"}', CASE WHEN (? + i) % 5 = 0 THEN 'agent:bot' ELSE 'human' END, ?, ? FROM n`,
    stream,
    from,
    from,
    subject,
    now,
  );
}

async function events(dir: string): Promise<void> {
  const s = await serve(dir);
  const now = Date.now();
  const stream = auditStream(SUBJECT);
  const others = EVENTS_TOTAL - LARGEST;
  await timed(`${others} events in ${others / 100} other streams`, () => seedOthersEvents(s.db, 0, others, now));
  const store = new EventStore(s.db);
  const activity: [string, Point][] = [];
  const appends: [string, Point][] = [];
  const latest: [string, Point][] = [];
  let have = 0;
  for (const [label, size] of SIZES) {
    const from = store.version(stream);
    await timed(`${size - have} events in ${SUBJECT}'s stream`, () => seedStreamEvents(s.db, stream, SUBJECT, from, size - have, now));
    have = size;
    s.db.pragma("wal_checkpoint(TRUNCATE)");
    console.log(`  ${label}: ${mb(s.path)}, ${perMillion(s.path, others + size)} per 10⁶ events`);
    activity.push([label, await measure(s.base, () => ({ method: "GET", path: "/account/activity", headers: { cookie: s.cookie } }))]);
    latest.push([label, await paced(() => store.latest(stream, 50, "human"), SECONDS)]);
    appends.push([
      label,
      await paced(
        () => store.appendAudit({ Type: "bench.appended", Data: {}, Actor: { String: () => "human" }, Subject: SUBJECT }),
        SECONDS,
      ),
    ]);
  }
  report("events", `GET /account/activity (${others} events in others' streams)`, activity);
  report("events", "EventStore.latest(stream, 50, 'human') in-process", latest);
  report("events", "EventStore.appendAudit in-process (one transaction each)", appends);
  await s.close();
}

/** Database size for the cold start (BENCH_COLD_BYTES, default 1 GB). */
const COLD_BYTES = scaled(Number(process.env["BENCH_COLD_BYTES"] ?? 1e9));

/**
 * The shipped unit's cold start (scripts/bench-cold.ts) with a 1 GB
 * database beside an empty one: the state directory is seeded with events
 * until the file holds COLD_BYTES, then both are started in turn.
 */
async function cold(dir: string): Promise<void> {
  const full = join(dir, "full");
  const empty = join(dir, "empty");
  for (const state of [full, empty]) mkdirSync(state);
  const shipped = coldServers().find((server) => server.label === SHIPPED_DEMO);
  if (shipped === undefined) throw new Error("bench: no shipped demo");
  // A first start makes the schema in each; the full one is then seeded while no server runs.
  for (const state of [full, empty]) await coldStart(shipped, state);
  const db = OpenDB(join(full, "demo.db"));
  const now = Date.now();
  let events = 0;
  await timed(`events until the file holds ${(COLD_BYTES / 1e9).toFixed(1)} GB`, () => {
    while (statSync(join(full, "demo.db")).size < COLD_BYTES) {
      seedOthersEvents(db, events, scaled(1_000_000), now);
      events += scaled(1_000_000);
      db.pragma("wal_checkpoint(TRUNCATE)");
      if (events >= scaled(50_000_000)) break;
    }
  });
  db.close();
  const runs = Number(process.env["BENCH_COLD_RUNS"] ?? 7);
  const times: Record<"empty" | "full", number[]> = { empty: [], full: [] };
  for (let round = -1; round < runs; round++) {
    for (const [name, state] of [
      ["empty", empty],
      ["full", full],
    ] as const) {
      const ms = await coldStart(shipped, state);
      if (round >= 0) times[name].push(ms);
    }
  }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  const line = `| cold | ${SHIPPED_DEMO}, cold start (median of ${runs}, min) | empty: ${median(times.empty).toFixed(1)} ms, ${Math.min(...times.empty).toFixed(1)} ms · ${mb(join(full, "demo.db"))}: ${median(times.full).toFixed(1)} ms, ${Math.min(...times.full).toFixed(1)} ms | ${(median(times.full) / median(times.empty)).toFixed(2)}× |`;
  rows.push(line);
  console.log(line);
}

const SCENARIOS: Record<string, (dir: string) => Promise<void>> = {
  sessions,
  signin: signinScenario,
  sweep,
  resources,
  events,
  teams,
  cold,
};
const chosen = process.argv.slice(2).length > 0 ? process.argv.slice(2) : Object.keys(SCENARIOS);
console.log(`bench-scale: Node ${process.version}, ${RATE} req/s for ${SECONDS} s per point, sizes divided by ${DIVISOR}`);
for (const name of chosen) {
  const run = SCENARIOS[name];
  if (run === undefined) throw new Error(`bench-scale: unknown scenario ${name} (${Object.keys(SCENARIOS).join(", ")})`);
  const dir = mkdtempSync(join(tmpdir(), "latch-scale-"));
  try {
    console.log(`${name}:`);
    await run(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
agent.destroy();
console.log("\n| scenario | request | size: median / p99 (statuses) | largest ÷ smallest: median / p99 |\n|---|---|---|---|");
for (const line of rows) console.log(line);
