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
 *              1,000 people: list page 1 and page 500 with a filter and a
 *              sort, record page, create, expenses_list over
 *              POST /api/tools and over MCP tools/call
 *   events     /account/activity with 10³/10⁵/10⁶ events in the person's
 *              stream beside 10⁶ in others' (10⁷ in all takes too long to
 *              seed on 2 cores)
 *
 * Each point also reports the database file's size. The client is in the
 * same process (requests at BENCH_RATE per second, default 200, for
 * BENCH_SECONDS, default 3, after a 1-second warm-up; latency from a
 * request's send to its last byte). Results: BENCHMARKS.md "(k) Scale".
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { Agent, request, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { OpenDB, type DB } from "../lib/db/index.ts";
import { newLogger } from "../lib/http/index.ts";
import { Handler } from "../lib/index.ts";
import { HashToken, NewToken } from "../lib/session/index.ts";
import * as signin from "../lib/signin/index.ts";
import { demoOptions } from "../examples/demo/app.ts";
import { copyClientScripts } from "../test/_support/demo.ts";
import { listen } from "../test/_support/server.ts";

const RATE = Number(process.env["BENCH_RATE"] ?? 200);
const SECONDS = Number(process.env["BENCH_SECONDS"] ?? 3);
const SUBJECT = "ada@example.com";
const CHUNK = 50_000;
/** Expired rows of each kind the sweep scenario deletes (BENCH_SWEEP_ROWS, default 10⁶). */
const SWEEP_ROWS = Number(process.env["BENCH_SWEEP_ROWS"] ?? 1_000_000);

/** A demo served on a database file. */
interface Served {
  db: DB;
  path: string;
  base: string;
  origin: string;
  cookie: string;
  close(): Promise<void>;
}

async function serve(dir: string): Promise<Served> {
  copyClientScripts();
  const path = join(dir, "scale.db");
  const db = OpenDB(path);
  const listening = await listen();
  const origin = `http://localhost:${listening.port}`;
  const quiet = new Writable({ write: (_c, _e, done) => done() });
  const { cleanup, ...options } = demoOptions(
    {
      addr: undefined,
      origin,
      stateDir: dir,
      instanceKey: "bench-scale-instance-key-not-secret",
      smtpURL: undefined,
      smtpCA: undefined,
      smtpCertSHA256: undefined,
      mailFrom: "demo@localhost",
      oidcIssuer: undefined,
      litestreamSocket: undefined,
      freshFor: 3_600_000,
      jobStepMs: 50,
    },
    newLogger({ stream: quiet }),
  );
  const [handler, close] = Handler({ ...options, DB: db });
  (listening.server as Server).on("request", (req, res) => void handler(req, res));
  // A signed-in person: a session row as sign-in writes it, and its cookie.
  const token = NewToken();
  const now = Date.now();
  db.prepare(
    "INSERT INTO sessions (token_hash, subject, method, auth_time, created_at, last_seen, expires_at, public_id, device) VALUES (?, ?, 'magiclink', ?, ?, ?, ?, ?, '')",
  ).run(HashToken(token), SUBJECT, now, now, now, now + 86_400_000, randomUUID());
  return {
    db,
    path,
    base: listening.base,
    origin,
    cookie: `framework_session=${token}`,
    async close() {
      await listening.close();
      cleanup();
      close();
      db.close();
    },
  };
}

/** Inserts `count` rows made by `row(i)` with one prepared statement, in transactions of CHUNK rows. */
function seed(db: DB, sql: string, count: number, row: (i: number) => unknown[]): void {
  const insert = db.prepare(sql);
  const chunk = db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) insert.run(...row(i));
  });
  for (let from = 0; from < count; from += CHUNK) chunk(from, Math.min(count, from + CHUNK));
}

const SESSION_SQL =
  "INSERT INTO sessions (token_hash, subject, method, auth_time, created_at, last_seen, expires_at, public_id, device) VALUES (?, ?, 'magiclink', ?, ?, ?, ?, ?, '')";

function seedSessions(db: DB, count: number, expired: boolean): void {
  const now = Date.now();
  const expires = expired ? now - 1 : now + 86_400_000;
  seed(db, SESSION_SQL, count, (i) => [randomUUID(), `person${i % 100_000}@example.com`, now, now, now, expires, randomUUID()]);
}

/** What one request sends. */
interface Req {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

/** Median and p99 latency in ms, and the status codes seen. */
interface Point {
  p50: number;
  p99: number;
  statuses: string;
}

const agent = new Agent({ keepAlive: true, maxSockets: 32 });

function once(base: string, r: Req): Promise<[number, number]> {
  const start = process.hrtime.bigint();
  return new Promise((resolve) => {
    const req = request(base + r.path, { method: r.method, headers: r.headers, agent }, (res) => {
      res.resume();
      res.on("end", () => resolve([res.statusCode ?? 0, Number(process.hrtime.bigint() - start) / 1e6]));
    });
    // A failed request (a kept-alive socket the server closed during seeding) counts as status 0.
    req.on("error", () => resolve([0, Number(process.hrtime.bigint() - start) / 1e6]));
    req.end(r.body);
  });
}

/** Sends `make(i)` at RATE per second for `seconds`, not waiting for answers (an open loop). */
async function load(base: string, make: (i: number) => Req, seconds: number): Promise<Point> {
  const total = Math.round(RATE * seconds);
  const started = performance.now();
  const pending: Promise<[number, number]>[] = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    pending.push(once(base, make(i)));
  }
  const results = await Promise.all(pending);
  const times = results.map(([, ms]) => ms).sort((a, b) => a - b);
  const statuses = new Map<number, number>();
  for (const [status] of results) statuses.set(status, (statuses.get(status) ?? 0) + 1);
  return {
    p50: times[Math.floor(times.length * 0.5)] ?? 0,
    p99: times[Math.floor(times.length * 0.99)] ?? 0,
    statuses: [...statuses].map(([s, n]) => `${s}×${n}`).join(" "),
  };
}

async function measure(base: string, make: (i: number) => Req): Promise<Point> {
  await load(base, make, 1);
  return load(base, make, SECONDS);
}

/** One request's points across the sizes, printed as a table row with the largest/smallest ratios. */
const rows: string[] = [];
function report(scenario: string, label: string, points: [string, Point][]): void {
  const first = points[0]?.[1];
  const last = points[points.length - 1]?.[1];
  const cells = points.map(([size, p]) => `${size}: ${p.p50.toFixed(2)} / ${p.p99.toFixed(2)} ms (${p.statuses})`);
  const ratio =
    first === undefined || last === undefined ? "" : `${(last.p50 / first.p50).toFixed(2)}× / ${(last.p99 / first.p99).toFixed(2)}×`;
  const line = `| ${scenario} | ${label} | ${cells.join(" · ")} | ${ratio} |`;
  rows.push(line);
  console.log(line);
}

function mb(path: string): string {
  const bytes = statSync(path).size + (statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0);
  return `${(bytes / 1e6).toFixed(0)} MB`;
}

async function timed(label: string, fn: () => void): Promise<void> {
  const start = performance.now();
  fn();
  console.log(`  seeded ${label} in ${((performance.now() - start) / 1000).toFixed(1)} s`);
}

const SIZES: [string, number][] = [
  ["10³", 1_000],
  ["10⁵", 100_000],
  ["10⁶", 1_000_000],
];

async function sessions(dir: string): Promise<void> {
  const s = await serve(dir);
  const points: [string, Point][] = [];
  let have = 0;
  for (const [label, size] of SIZES) {
    await timed(`${size - have} live sessions`, () => seedSessions(s.db, size - have, false));
    have = size;
    if (size === 1_000_000) await timed("10⁶ expired sessions", () => seedSessions(s.db, 1_000_000, true));
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
    await timed(`${size - have} links and rate rows`, () => {
      const from = have;
      seed(s.db, "INSERT INTO signin_links (token_hash, purpose, address, expires_at) VALUES (?, 'signin', ?, ?)", size - have, (i) => [
        randomUUID(),
        `person${(from + i) % 100_000}@example.com`,
        now + ((from + i) % 2 === 0 ? -1 : 600_000),
      ]);
      seed(s.db, "INSERT INTO signin_rate_events (bucket, at) VALUES (?, ?)", size - have, (i) => [
        `address:person${(from + i) % 100_000}`,
        now - ((from + i) % 3_600_000),
      ]);
    });
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
    seed(
      db,
      "INSERT INTO signin_links (token_hash, purpose, address, expires_at) VALUES (?, 'signin', 'x@example.com', ?)",
      1_000_000,
      () => [randomUUID(), now - 1],
    );
    seed(db, "INSERT INTO signin_rate_events (bucket, at) VALUES ('ip:203.0.113.9', ?)", SWEEP_ROWS, () => [now - 86_400_000]);
  });
  const auth = signin.create({
    DB: db,
    Origin: "http://localhost",
    InstanceKey: "bench",
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

async function resources(dir: string): Promise<void> {
  const s = await serve(dir);
  const now = Date.now();
  const insert = "INSERT INTO expenses (id, owner, created_at, updated_at, label, amount) VALUES (?, ?, ?, ?, ?, ?)";
  const row = (owner: (i: number) => string) => (i: number) => [
    randomUUID(),
    owner(i),
    now - i,
    now - i,
    `item ${i % 997}`,
    (i * 7919) % 100_000,
  ];
  await timed("900,000 expenses of 999 other people", () =>
    seed(
      s.db,
      insert,
      900_000,
      row((i) => `person${i % 999}@example.com`),
    ),
  );
  const tokenPage = await once(s.base, { method: "GET", path: "/account/agents", headers: { cookie: s.cookie } });
  if (tokenPage[0] !== 200) throw new Error(`bench: /account/agents answered ${tokenPage[0]}`);
  const minted = await new Promise<string>((resolve, reject) => {
    const req = request(
      `${s.base}/account/agents`,
      { method: "POST", agent, headers: { cookie: s.cookie, origin: s.origin, "content-type": "application/x-www-form-urlencoded" } },
      (res) => {
        let body = "";
        res.on("data", (c: Buffer) => (body += c.toString()));
        res.on("end", () => resolve(/data-agent-token="([A-Za-z0-9_-]+)"/.exec(body)?.[1] ?? ""));
      },
    );
    req.on("error", reject);
    req.end("name=bench&access=read");
  });
  const bearer = { authorization: `Bearer ${minted}`, "content-type": "application/json", origin: s.origin };
  const sizes: [string, number][] = [
    ["10²", 100],
    ["10⁴", 10_000],
    ["10⁵", 100_000],
  ];
  const byRequest = new Map<string, [string, Point][]>();
  const add = (label: string, size: string, p: Point): void => void byRequest.set(label, [...(byRequest.get(label) ?? []), [size, p]]);
  let have = 0;
  for (const [label, size] of sizes) {
    await timed(`${size - have} of ${SUBJECT}'s expenses`, () =>
      seed(
        s.db,
        insert,
        size - have,
        row(() => SUBJECT),
      ),
    );
    have = size;
    s.db.pragma("wal_checkpoint(TRUNCATE)");
    console.log(`  ${label}: ${mb(s.path)}`);
    // Page 500 begins after row 9,980 in the list's order; a person with fewer records gets the page after their last.
    const cursorRow = s.db
      .prepare(
        "SELECT id, ifnull(amount, -1000000000000000000) AS amount FROM expenses WHERE owner = ? AND amount >= 1 ORDER BY ifnull(amount, -1000000000000000000) DESC, id DESC LIMIT 1 OFFSET ?",
      )
      .get(SUBJECT, Math.min(9_979, size - 2)) as { id: string; amount: number };
    const after = Buffer.from(JSON.stringify([cursorRow.amount, cursorRow.id])).toString("base64url");
    const record = (s.db.prepare("SELECT id FROM expenses WHERE owner = ? LIMIT 1").get(SUBJECT) as { id: string }).id;
    const cookie = { cookie: s.cookie };
    add(
      "list page 1 (amount ≥ 0.01, sorted by amount)",
      label,
      await measure(s.base, () => ({ method: "GET", path: "/expenses?amount_min=0.01&sort=amount&dir=desc", headers: cookie })),
    );
    add(
      "list page 500 (keyset)",
      label,
      await measure(s.base, () => ({
        method: "GET",
        path: `/expenses?amount_min=0.01&sort=amount&dir=desc&after=${after}`,
        headers: cookie,
      })),
    );
    add(
      "list, label contains “item 5”",
      label,
      await measure(s.base, () => ({ method: "GET", path: "/expenses?label=item+5", headers: cookie })),
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
    add(
      "POST /api/tools/expenses_list",
      label,
      await measure(s.base, () => ({ method: "POST", path: "/api/tools/expenses_list", headers: bearer, body: "{}" })),
    );
    add(
      "MCP tools/call expenses_list",
      label,
      await measure(s.base, (i) => ({
        method: "POST",
        path: "/mcp",
        headers: { ...bearer, accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: i, method: "tools/call", params: { name: "expenses_list", arguments: {} } }),
      })),
    );
  }
  for (const [label, points] of byRequest) report("resources", label, points);
  await s.close();
}

async function events(dir: string): Promise<void> {
  const s = await serve(dir);
  const now = Date.now();
  const insert = "INSERT INTO events (stream, seq, type, data, actor, subject, at) VALUES (?, ?, 'auth.signed_in', '{}', ?, ?, ?)";
  const stream = `audit:${SUBJECT}`;
  // Others' streams: 10⁶ events, 100 each; the person's stream grows to 10⁶ beside them (2·10⁶ in all).
  await timed("10⁶ events in 10,000 other streams", () =>
    seed(s.db, insert, 1_000_000, (i) => [
      `audit:person${Math.floor(i / 100)}@example.com`,
      (i % 100) + 1,
      i % 5 === 0 ? "agent:bot" : "human",
      "x",
      now,
    ]),
  );
  const points: [string, Point][] = [];
  let have = 0;
  for (const [label, size] of SIZES) {
    const from = have;
    await timed(`${size - from} events in ${SUBJECT}'s stream`, () =>
      seed(s.db, insert, size - from, (i) => [stream, from + i + 1, (from + i) % 5 === 0 ? "agent:bot" : "human", SUBJECT, now]),
    );
    have = size;
    s.db.pragma("wal_checkpoint(TRUNCATE)");
    console.log(`  ${label}: ${mb(s.path)}`);
    points.push([label, await measure(s.base, () => ({ method: "GET", path: "/account/activity", headers: { cookie: s.cookie } }))]);
  }
  report("events", "GET /account/activity", points);
  await s.close();
}

const SCENARIOS: Record<string, (dir: string) => Promise<void>> = { sessions, signin: signinScenario, sweep, resources, events };
const chosen = process.argv.slice(2).length > 0 ? process.argv.slice(2) : Object.keys(SCENARIOS);
console.log(`bench-scale: Node ${process.version}, ${RATE} req/s for ${SECONDS} s per point`);
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
