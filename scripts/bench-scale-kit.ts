/*
 * The measuring kit of `bench-scale` (scripts/bench-scale.ts, whose header
 * describes the settings): the demo served in this process on a database
 * file, requests at a fixed offered load (BENCH_RATE for BENCH_SECONDS)
 * with their median and p99, the report's table rows with the largest ÷
 * smallest ratio, and seeding inside SQLite (seedRange). Each scenario
 * file imports it.
 */
import { randomUUID } from "node:crypto";
import { statSync } from "node:fs";
import { Agent, request, type Server } from "node:http";
import { join } from "node:path";
import { Writable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { OpenDB, type DB } from "../lib/db/index.ts";
import { newLogger } from "../lib/http/index.ts";
import { Handler } from "../lib/index.ts";
import { HashToken, NewToken } from "../lib/session/index.ts";
import { ownerTag, searchRow } from "../lib/manifest/search.ts";
import { demoOptions } from "../examples/demo/app.ts";
import { loadConfig } from "../examples/demo/config.ts";
import { copyClientScripts } from "../test/_support/demo.ts";
import { listen } from "../test/_support/server.ts";

/** Requests a second (BENCH_RATE, default 200) offered to each point. */
export const RATE: number = Number(process.env["BENCH_RATE"] ?? 200);
/** Seconds each point is measured (BENCH_SECONDS, default 3), after a 1-second warm-up. */
export const SECONDS: number = Number(process.env["BENCH_SECONDS"] ?? 3);
/** The signed-in person of every scenario. */
export const SUBJECT = "ada@example.com";
/** What every size and seeding count is divided by (BENCH_SCALE_DIVISOR, default 1). */
export const DIVISOR: number = Number(process.env["BENCH_SCALE_DIVISOR"] ?? 1);
if (!Number.isSafeInteger(DIVISOR) || DIVISOR < 1) throw new Error("bench-scale: BENCH_SCALE_DIVISOR must be a whole number of at least 1");
/** `n` divided by DIVISOR, at least 1. */
export const scaled = (n: number): number => Math.max(1, Math.round(n / DIVISOR));

/** A demo served on a database file. */
export interface Served {
  db: DB;
  path: string;
  base: string;
  origin: string;
  cookie: string;
  close(): Promise<void>;
}

export async function serve(dir: string): Promise<Served> {
  const path = join(dir, "scale.db");
  const db = OpenDB(path);
  const demo = await serveDemo(db, dir);
  // A signed-in person: a session row as sign-in writes it, and its cookie.
  const token = NewToken();
  const now = Date.now();
  db.prepare(
    "INSERT INTO sessions (token_hash, subject, method, auth_time, created_at, last_seen, expires_at, public_id, device) VALUES (?, ?, 'magiclink', ?, ?, ?, ?, ?, '')",
  ).run(HashToken(token), SUBJECT, now, now, now, now + 86_400_000, randomUUID());
  return {
    db,
    path,
    base: demo.base,
    origin: demo.origin,
    cookie: `framework_session=${token}`,
    async close() {
      await demo.close();
      db.close();
    },
  };
}

/** The demo as shipped (its options from `demoOptions`, JOB_STEP_MS aside) on `db`, served in this process; `dir` is its state directory. */
export async function serveDemo(
  db: DB,
  dir: string,
  env: Record<string, string> = { JOB_STEP_MS: "50" },
): Promise<{ base: string; origin: string; port: number; close(): Promise<void> }> {
  copyClientScripts();
  const listening = await listen();
  const origin = `http://localhost:${listening.port}`;
  // BENCH_LOG=1 shows the demo's log (a 500's cause); quiet by default, a log line per request being part of no scenario.
  const quiet = new Writable({ write: (_c, _e, done) => done() });
  const logger = newLogger({ stream: process.env["BENCH_LOG"] === "1" ? process.stderr : quiet });
  const config = {
    STATE_DIRECTORY: dir,
    ORIGIN: origin,
    INSTANCE_KEY: "bench-scale-instance-key-not-secret",
    MAIL_FROM: "demo@localhost",
    FRESH_SECONDS: "3600",
    ...env,
  };
  const { cleanup, ...options } = demoOptions(loadConfig(config, logger), logger);
  const [handler, close] = Handler({ ...options, DB: db });
  (listening.server as Server).on("request", (req, res) => void handler(req, res));
  return {
    base: listening.base,
    origin,
    port: listening.port,
    async close() {
      await listening.close();
      cleanup();
      close();
    },
  };
}

/** What one request sends. */
export interface Req {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** Names the answer in the status counts from its status and body (a refusal inside a 200); default: the status. */
  judge?: (status: number, body: string) => string;
}

/** Median and p99 latency in ms, and the status codes seen. */
export interface Point {
  p50: number;
  p99: number;
  statuses: string;
}

/** The client's keep-alive agent (destroyed when every scenario ran). */
export const agent: Agent = new Agent({ keepAlive: true, maxSockets: 32 });

export function once(base: string, r: Req): Promise<[string, number]> {
  const start = process.hrtime.bigint();
  return new Promise((resolve) => {
    const req = request(base + r.path, { method: r.method, headers: r.headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => void (r.judge === undefined || chunks.push(c)));
      res.on("end", () => {
        const status = res.statusCode ?? 0;
        const name = r.judge === undefined ? String(status) : r.judge(status, Buffer.concat(chunks).toString());
        resolve([name, Number(process.hrtime.bigint() - start) / 1e6]);
      });
    });
    // A failed request (a kept-alive socket the server closed during seeding) counts as status 0.
    req.on("error", () => resolve(["0", Number(process.hrtime.bigint() - start) / 1e6]));
    req.end(r.body);
  });
}

/** Median and p99 of the answers' times, and how many of each status. */
export function summarize(results: [string, number][]): Point {
  const times = results.map(([, ms]) => ms).sort((a, b) => a - b);
  const statuses = new Map<string, number>();
  for (const [status] of results) statuses.set(status, (statuses.get(status) ?? 0) + 1);
  return {
    p50: times[Math.floor(times.length * 0.5)] ?? 0,
    p99: times[Math.floor(times.length * 0.99)] ?? 0,
    statuses: [...statuses].map(([s, n]) => `${s}×${n}`).join(" "),
  };
}

/** Sends `make(i)` at RATE per second for `seconds`, not waiting for answers (an open loop). */
export async function load(base: string, make: (i: number) => Req, seconds: number): Promise<Point> {
  const total = Math.round(RATE * seconds);
  const started = performance.now();
  const pending: Promise<[string, number]>[] = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    pending.push(once(base, make(i)));
  }
  return summarize(await Promise.all(pending));
}

export async function measure(base: string, make: (i: number) => Req): Promise<Point> {
  await load(base, make, 1);
  return load(base, make, SECONDS);
}

/** Requests slower than the offered load allows (a search over 10⁶ rows): BENCH_SEQUENTIAL (10) of them one after another. */
export const SEQUENTIAL: number = Number(process.env["BENCH_SEQUENTIAL"] ?? 10);

export async function sequential(base: string, make: (i: number) => Req): Promise<Point> {
  await once(base, make(0));
  const results: [string, number][] = [];
  for (let i = 0; i < SEQUENTIAL; i++) results.push(await once(base, make(i)));
  return summarize(results);
}

/** One request's points across the sizes, printed as a table row with the largest/smallest ratios. */
export const rows: string[] = [];
export function report(scenario: string, label: string, points: [string, Point][]): void {
  const first = points[0]?.[1];
  const last = points[points.length - 1]?.[1];
  const cells = points.map(([size, p]) => `${size}: ${p.p50.toFixed(2)} / ${p.p99.toFixed(2)} ms (${p.statuses})`);
  const ratio =
    first === undefined || last === undefined ? "" : `${(last.p50 / first.p50).toFixed(2)}× / ${(last.p99 / first.p99).toFixed(2)}×`;
  const line = `| ${scenario} | ${label} | ${cells.join(" · ")} | ${ratio} |`;
  rows.push(line);
  console.log(line);
}

export function mb(path: string): string {
  const bytes = statSync(path).size + (statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0);
  return `${(bytes / 1e6).toFixed(0)} MB`;
}

export async function timed(label: string, fn: () => void): Promise<void> {
  const start = performance.now();
  fn();
  console.log(`  seeded ${label} in ${((performance.now() - start) / 1000).toFixed(1)} s`);
}

/** `n` as a power of ten where it is one (10⁵), else in digits. */
export function sizeLabel(n: number): string {
  const exponent = Math.log10(n);
  if (!Number.isInteger(exponent)) return n.toLocaleString("en-US");
  return `10${[...String(exponent)].map((d) => "⁰¹²³⁴⁵⁶⁷⁸⁹"[Number(d)]).join("")}`;
}

/** Sizes as [label, rows], each divided by DIVISOR. */
export function sizes(...ns: number[]): [string, number][] {
  return ns.map((n) => [sizeLabel(scaled(n)), scaled(n)]);
}

/**
 * Runs `sql`, an INSERT … SELECT from `n(i)` (i from 0 to count - 1, a
 * recursive CTE the statement begins with), in one transaction: the rows
 * are made inside SQLite, no JavaScript per row.
 */
export function seedRange(db: DB, count: number, sql: string, ...params: unknown[]): void {
  const insert = db.prepare(`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?) ${sql}`);
  bigCache(db, () => db.transaction(() => insert.run(count, ...params))());
}

/**
 * Runs `fn` with a page cache of 512 MB (SQLite's default, 2 MB, spills the
 * index pages of a large transaction to the WAL again and again); the
 * requests measured afterwards run with the default again.
 */
export function bigCache(db: DB, fn: () => void): void {
  const cache = db.pragma("cache_size", { simple: true }) as number;
  db.pragma("cache_size = -524288");
  try {
    fn();
  } finally {
    db.pragma(`cache_size = ${cache}`);
  }
}

/** A random UUID v4 per row of `n(i)`, made once per row (a materialized CTE: randomblob() is not repeated). */
export const UUIDS = `, u(i, h) AS MATERIALIZED (SELECT i, lower(hex(randomblob(16))) FROM n)`;
export const UUID = `substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-4' || substr(h, 14, 3) || '-a' || substr(h, 18, 3) || '-' || substr(h, 21, 12)`;

/**
 * Inserts `count` read tokens of the signed-in person, rows as
 * `AgentTokens.mint` writes them, and returns a function handing out each
 * token once. A token's rate limit (lib/agent/rate.ts: 60 calls a minute, 20
 * at once, per token) stays as shipped; a token called once is never
 * refused, so the agents' rows measure the tool call and not the refusal.
 * A person may mint at most MAX_AGENT_TOKENS (20) live tokens; the pool
 * holds more (up to 3 · 4 · BENCH_RATE), which nothing on the call path
 * sees: a token is found by its hash.
 */
export function tokenPool(db: DB, count: number): () => string {
  const insert = db.prepare(
    `INSERT INTO agent_tokens (id, token_hash, subject, name, access, created_at, expires_at)
     VALUES (?, ?, ?, ?, 'read', ?, ?)`,
  );
  const now = Date.now();
  const tokens: string[] = [];
  db.transaction(() => {
    for (let i = 0; i < count; i++) {
      const token = NewToken();
      const id = randomUUID();
      insert.run(id, HashToken(token), SUBJECT, `bench-${id}`, now, now + 86_400_000);
      tokens.push(token);
    }
  })();
  let next = 0;
  return () => {
    const token = tokens[next++];
    if (token === undefined) throw new Error(`bench: the pool of ${count} agent tokens is spent`);
    return token;
  };
}

/** Names a list page's answer by its status and the records it shows: a search finds the person's records. */
export function found(status: number, body: string): string {
  return `${status} (${body.split("<tr data-record-id=").length - 1} shown)`;
}

/** Names an MCP answer: "200" for a tool's result, else the JSON-RPC error or the refusal inside the result. */
export function judgeRPC(status: number, body: string): string {
  if (status !== 200) return String(status);
  const answer = JSON.parse(body) as { error?: { code: number }; result?: { isError?: boolean } };
  if (answer.error !== undefined) return `200 JSON-RPC error ${answer.error.code}`;
  return answer.result?.isError === true ? "200 isError" : "200";
}

/** Calls `fn` RATE times a second for `seconds` in this process; median and p99 of one call, in ms. */
export async function paced(fn: () => void, seconds: number): Promise<Point> {
  const total = Math.round(RATE * seconds);
  const times: number[] = [];
  const started = performance.now();
  for (let i = 0; i < total; i++) {
    const wait = started + (i * 1000) / RATE - performance.now();
    if (wait > 1) await sleep(wait);
    const t = performance.now();
    fn();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(total * 0.5)] ?? 0, p99: times[Math.floor(total * 0.99)] ?? 0, statuses: `${total} calls` };
}

/** The database file's (and its WAL's) MB per million rows (its bytes a row). */
export function perMillion(path: string, rows: number): string {
  const bytes = statSync(path).size + (statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0);
  return `${(bytes / rows).toFixed(0)} MB`;
}

/** The word seedExpenses puts in one label of every `wordEvery`: a search finds it. */
export const WORD = "taxi";

/**
 * Inserts `count` expenses of `owner` (SQL over `i`, with `ownerParams`) with created_at
 * `newest - i`, labels "item <i mod 997>" and WORD in one label of every
 * `wordEvery` (the first included), and their search rows as the write path
 * makes them (searchRow: the owner's tag, then the label, the one searched
 * field), in one transaction. `owners` lists every owner `owner` names.
 */
export function seedExpenses(
  db: DB,
  count: number,
  owner: string,
  ownerParams: unknown[],
  owners: readonly string[],
  newest: number,
  wordEvery: number,
): void {
  const last = (db.prepare("SELECT ifnull(max(rowid), 0) AS n FROM expenses").get() as { n: number }).n;
  tagOwners(db, owners);
  bigCache(db, () =>
    db.transaction(() => {
      seedRange(
        db,
        count,
        `${UUIDS} INSERT INTO expenses (id, owner, created_at, updated_at, label, amount)
       SELECT ${UUID}, ${owner}, ? - i, ? - i, 'item ' || (i % 997) || CASE WHEN i % ? = 0 THEN ' ${WORD}' ELSE '' END,
              (i * 7919) % 100000 FROM u ORDER BY i`,
        ...ownerParams,
        newest,
        newest,
        wordEvery,
      );
      // searchRow(owner, [label]): the tag, and the label on the next line when it is not empty.
      const indexed = db
        .prepare(
          `INSERT INTO expenses_search (rowid, body)
           SELECT e.rowid, t.tag || CASE WHEN ifnull(e.label, '') = '' THEN '' ELSE char(10) || e.label END
           FROM expenses e JOIN temp.owner_tags t ON t.owner = e.owner WHERE e.rowid > ?`,
        )
        .run(last).changes;
      if (indexed !== count) throw new Error(`bench: ${count} expenses seeded, ${indexed} search rows (an owner without a tag)`);
    })(),
  );
  const seeded = db
    .prepare("SELECT e.owner, e.label, s.body FROM expenses e JOIN expenses_search s ON s.rowid = e.rowid WHERE e.rowid = ?")
    .get(last + 1) as { owner: string; label: string; body: string };
  if (seeded.body !== searchRow(seeded.owner, [seeded.label])) throw new Error("bench: a seeded search row differs from searchRow's");
}

/**
 * Writes the search tag (ownerTag) of each of `owners` into the temp
 * table owner_tags, computed here once an owner, for the seeding's
 * INSERT … SELECT to join.
 */
function tagOwners(db: DB, owners: readonly string[]): void {
  db.exec("CREATE TEMP TABLE IF NOT EXISTS owner_tags (owner TEXT PRIMARY KEY, tag TEXT NOT NULL)");
  const insert = db.prepare("INSERT OR IGNORE INTO temp.owner_tags (owner, tag) VALUES (?, ?)");
  db.transaction(() => owners.forEach((o) => insert.run(o, ownerTag(o))))();
}
