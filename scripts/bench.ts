/*
 * `npm run bench`: latch beside bare node:http and other frameworks, in
 * one run, on one machine. Method and results: BENCHMARKS.md.
 *
 *   (a) hello world  GET /            (b) GET /users/{id} among 50 routes
 *   (c) a 404                          (d) an authenticated route (session row)
 *   (e) passkey verifications/s        (f) 10,000 SSE streams, latch and bare
 *   (g) slow connections, 1,024 files  (h) cold start under socket activation
 *   (i) /healthz during a passkey burst (bench-extra.ts)
 *   (j) no client starves the others: six attacks under a 1,024 file limit
 *   (l) search of 10,000 records per person, CSV of 10,000 rows streamed
 *   (n) a CSV import of 10,000 and 100,000 rows: rows/s, peak memory (bench-import.ts)
 *       ((k) is `npm run bench:scale`, its own run)
 *
 * Each server runs pinned to core 0 and the load generator to core 1; each
 * server gets a warm-up over all its scenarios' paths, then each scenario
 * is measured for BENCH_DURATION seconds per server, in BENCH_SLICES
 * interleaved slices, with the same load for every server.
 * Environment: BENCH_DURATION (s, 10), BENCH_WARMUP (s, 3), BENCH_SLICES (5),
 * BENCH_CONNECTIONS (100), BENCH_PIPELINING (1), BENCH_ONLY (e.g. "b,d"),
 * BENCH_SERVERS (labels, e.g. "latch,hono"), BENCH_PASSKEY_ITERATIONS (500),
 * BENCH_SSE_STREAMS (10000), BENCH_SSE_SECONDS (30), BENCH_COLD_RUNS (7),
 * BENCH_BURST_SECONDS (10), BENCH_STARVE_SECONDS (20), BENCH_SEARCH_RUNS
 * (200), BENCH_PROFILE (a
 * directory: profile every server with --cpu-prof and summarize),
 * BENCH_JSON (a file to write the raw results to), BENCH_NICE (a nice
 * level for the servers and the load generator, e.g. -10 as root on a
 * shared machine).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import {
  combine,
  envNumber,
  measure,
  pinned,
  probe,
  ROOT,
  startServer,
  warm,
  type LoadOptions,
  type Measurement,
  type RunningServer,
  type ServerSpec,
} from "./bench-load.ts";
import type { PasskeyBench } from "./bench-passkey.ts";
import { benchImport, importSummary, importTable } from "./bench-import.ts";
import { formatProfile, summarizeProfile } from "./bench-profile.ts";
import { passkeyTable, perCPU, ratio, table, target, type Row } from "./bench-report.ts";
import { extraBurst, extraCold, extraSearch, extraSlow, extraSSE, extraStarve, type ExtraResult } from "./bench-extra.ts";
import { HELLO_BODY } from "./bench-servers/routes.ts";
import { BENCH_COOKIE, seedSessionDB } from "./bench-servers/session-db.ts";

const load: LoadOptions = {
  connections: envNumber("BENCH_CONNECTIONS", 100),
  pipelining: envNumber("BENCH_PIPELINING", 1),
  duration: envNumber("BENCH_DURATION", 10),
  warmup: envNumber("BENCH_WARMUP", 3),
  slices: Math.max(1, Math.round(envNumber("BENCH_SLICES", 5))),
};
const only = new Set((process.env["BENCH_ONLY"] ?? "a,b,c,d,e,f,g,h,i,j,l,n").split(","));
const serverFilter = process.env["BENCH_SERVERS"]?.split(",");
const profileDir = process.env["BENCH_PROFILE"] === undefined ? undefined : resolve(process.env["BENCH_PROFILE"]);
// --sse and BENCH_SSE=1 are kept from before (f) ran by default; they add (f) to a BENCH_ONLY list.
if (process.argv.includes("--sse") || process.env["BENCH_SSE"] === "1") only.add("f");

interface Scenario {
  key: string;
  title: string;
  path: string;
  expect: 2 | 4;
  check: (status: number, body: string) => boolean;
  /** Request headers; a scenario with headers must answer 401 without them. */
  headers?: Record<string, string>;
}

const SCENARIOS: Scenario[] = [
  { key: "a", title: "(a) hello world, GET /", path: "/", expect: 2, check: (s, b) => s === 200 && b === HELLO_BODY },
  {
    key: "b",
    title: "(b) routed GET /users/{id} (JSON) among 50 routes",
    path: "/users/42",
    expect: 2,
    check: (s, b) => s === 200 && b.includes('"id":"42"'),
  },
  { key: "c", title: "(c) not found, GET /missing/42", path: "/missing/42", expect: 4, check: (s) => s === 404 },
];

interface Server {
  label: string;
  spec: ServerSpec;
}

function profileName(label: string): string {
  return label.replace(/[^a-z0-9-]+/g, "-");
}

function profileFlags(label: string): string[] {
  return profileDir === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${profileName(label)}.cpuprofile`];
}

const HTTP_SERVERS: Server[] = [
  { label: "node:http", spec: { file: "dist/scripts/bench-servers/bare.js", args: ["plain"] } },
  { label: "node:http+headers", spec: { file: "dist/scripts/bench-servers/bare.js", args: ["headers"] } },
  { label: "node:http+rawheaders", spec: { file: "dist/scripts/bench-servers/bare.js", args: ["rawheaders"] } },
  { label: "latch", spec: { file: "dist/scripts/bench-servers/latch.js", args: [] } },
  { label: "fastify", spec: { file: "bench/fastify.mjs", args: [] } },
  { label: "fastify+headers", spec: { file: "bench/fastify.mjs", args: ["headers"] } },
  { label: "hono", spec: { file: "bench/hono.mjs", args: [] } },
  { label: "hono+headers", spec: { file: "bench/hono.mjs", args: ["headers"] } },
  { label: "express", spec: { file: "bench/express.mjs", args: [] } },
];

function ensureTools(): void {
  if (spawnSync("taskset", ["-V"]).error !== undefined) throw new Error("bench: taskset (util-linux) is required to pin processes");
  if (cpus().length < 2) throw new Error("bench: needs 2 cores (server on core 0, load generator on core 1)");
  if (existsSync(join(ROOT, "bench/node_modules/autocannon/package.json"))) return;
  process.stdout.write("bench: installing bench/ dependencies (npm install --prefix bench)...\n");
  const r = spawnSync("npm", ["install", "--prefix", "bench", "--no-audit", "--no-fund"], { cwd: ROOT, stdio: "inherit" });
  if (r.status !== 0) throw new Error("bench: npm install --prefix bench failed");
}

function print(text: string): void {
  process.stdout.write(text + "\n");
}

function printProfile(label: string): void {
  if (profileDir === undefined) return;
  const file = join(profileDir, `${profileName(label)}.cpuprofile`);
  print(`\nprofile of ${label} (${file}):\n` + formatProfile(summarizeProfile(file, 20)));
}

/**
 * Starts `servers` side by side (all pinned to core 0, idle but one at a
 * time), checks each answers every scenario as expected, warms each up,
 * then measures every scenario in interleaved slices (server 1, 2, ...,
 * then again), so load from outside the benchmark lands on all of them
 * alike.
 */
async function runGroup(group: string, servers: Server[], scenarios: Scenario[], results: Record<string, Row[]>): Promise<void> {
  const running: RunningServer[] = [];
  try {
    for (const server of servers) running.push(await startServer({ ...server.spec, nodeFlags: profileFlags(`${group}-${server.label}`) }));
    for (const [i, server] of servers.entries()) {
      const port = running[i]?.port ?? 0;
      for (const s of scenarios) {
        const answer = await probe(port, s.path, s.headers);
        const refused = s.headers === undefined ? undefined : await probe(port, s.path);
        if (!s.check(answer.status, answer.body) || (refused !== undefined && refused.status !== 401)) {
          throw new Error(`bench: ${server.label} ${s.path} answered ${answer.status} ${answer.body.slice(0, 80)}`);
        }
      }
    }
    for (const [i, server] of servers.entries()) {
      print(`  warm-up ${server.label}...`);
      await warm(
        running[i] ?? missing(),
        scenarios.map((s) => s.path),
        load.warmup,
        load,
        scenarios[0]?.headers,
      );
    }
    const slice = load.duration / Math.max(1, load.slices);
    for (const s of scenarios) {
      print(`  ${s.title}: ${load.slices} x ${slice} s per server...`);
      const slices: Measurement[][] = servers.map(() => []);
      for (let round = 0; round < load.slices; round++) {
        for (const [i, r] of running.entries()) slices[i]?.push(await measure(r, s.path, slice, load, s.expect, s.headers));
      }
      results[s.key] = servers.map((server, i) => ({ label: server.label, m: combine(slices[i] ?? []) }));
    }
  } finally {
    for (const r of running) await r.stop();
  }
  for (const server of servers) printProfile(`${group}-${server.label}`);
}

function missing(): never {
  throw new Error("bench: server did not start");
}

async function runHTTP(results: Record<string, Row[]>): Promise<void> {
  const scenarios = SCENARIOS.filter((s) => only.has(s.key));
  if (scenarios.length === 0) return;
  await runGroup(
    "http",
    HTTP_SERVERS.filter((s) => serverFilter?.includes(s.label) ?? true),
    scenarios,
    results,
  );
}

async function runSession(results: Record<string, Row[]>): Promise<void> {
  if (!only.has("d")) return;
  const dir = mkdtempSync(join(tmpdir(), "latch-bench-"));
  try {
    const db = join(dir, "bench.db");
    const token = seedSessionDB(db, "bench@example.com");
    const scenario: Scenario = {
      key: "d",
      title: "(d) authenticated GET /me (cookie -> sha256 -> session row)",
      path: "/me",
      expect: 2,
      headers: { Cookie: `theme=dark; ${BENCH_COOKIE}=${token}; lang=en` },
      check: (status, body) => status === 200 && body.includes("bench@example.com"),
    };
    const servers: Server[] = [
      { label: "bare-lookup", spec: { file: "dist/scripts/bench-servers/bare-session.js", args: [db] } },
      { label: "latch", spec: { file: "dist/scripts/bench-servers/latch-session.js", args: [db] } },
    ];
    await runGroup("session", servers, [scenario], results);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function runPasskey(): Promise<PasskeyBench[] | undefined> {
  if (!only.has("e")) return undefined;
  print("  passkey verifications...");
  const n = String(envNumber("BENCH_PASSKEY_ITERATIONS", 500));
  const child = pinned(0, ["dist/scripts/bench-passkey.js", n]);
  let out = "";
  child.stdout?.on("data", (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((res) => child.on("exit", res));
  if (code !== 0) throw new Error(`bench: passkey benchmark exited with ${code}`);
  const parsed: unknown = JSON.parse(out);
  if (!Array.isArray(parsed)) throw new Error("bench: passkey benchmark printed no results");
  return parsed.filter((r): r is PasskeyBench => typeof r === "object" && r !== null && "alg" in r && "fullPerSec" in r);
}

function rps(rows: Row[] | undefined, label: string): number {
  return rows?.find((r) => r.label === label)?.m.rps ?? 0;
}

function cpuRatio(rows: Row[] | undefined, a: string, b: string): string {
  const ma = rows?.find((r) => r.label === a)?.m;
  const mb = rows?.find((r) => r.label === b)?.m;
  return ma === undefined || mb === undefined ? "n/a" : ratio(perCPU(ma), perCPU(mb));
}

function summary(results: Record<string, Row[]>, passkey: PasskeyBench[] | undefined): string {
  const lines = ["", "Ratios"];
  for (const s of SCENARIOS) {
    const rows = results[s.key];
    if (rows === undefined || (rps(rows, "node:http+headers") === 0 && rps(rows, "node:http+rawheaders") === 0)) continue;
    const vs = ["hono", "hono+headers", "express", "fastify", "fastify+headers"]
      .filter((f) => rps(rows, f) > 0)
      .map((f) => `latch / ${f} ${ratio(rps(rows, "latch"), rps(rows, f))}`)
      .join(", ");
    const cpu = cpuRatio(rows, "latch", "node:http+headers");
    lines.push(`  ${s.key}: latch / bare+headers ${ratio(rps(rows, "latch"), rps(rows, "node:http+headers"))} (per CPU-s ${cpu}); ${vs}`);
    if (rps(rows, "node:http+rawheaders") > 0)
      lines.push(
        `  ${s.key}: latch / bare+rawheaders ${ratio(rps(rows, "latch"), rps(rows, "node:http+rawheaders"))} ` +
          `(per CPU-s ${cpuRatio(rows, "latch", "node:http+rawheaders")})`,
      );
  }
  const d = results["d"];
  if (d !== undefined)
    lines.push(
      `  d: latch / bare-lookup ${ratio(rps(d, "latch"), rps(d, "bare-lookup"))} (per CPU-s ${cpuRatio(d, "latch", "bare-lookup")})`,
    );
  for (const p of passkey ?? []) lines.push(`  e: ${p.alg} ours / node:crypto ${ratio(p.fullPerSec, p.nodePerSec)}`);
  lines.push("", "Targets");
  const b = results["b"];
  if (b !== undefined) {
    for (const base of ["node:http+rawheaders", "node:http+headers"])
      if (rps(b, base) > 0) lines.push(target(`(b) latch / ${base.replace("node:http", "bare")}`, rps(b, "latch") / rps(b, base), 0.9));
    for (const f of ["fastify", "fastify+headers", "hono", "hono+headers", "express"])
      if (rps(b, f) > 0) lines.push(target(`(b) latch / ${f} (ahead)`, rps(b, "latch") / rps(b, f), 1));
  }
  if (results["d"] !== undefined)
    lines.push(target("(d) latch / bare-lookup", rps(results["d"], "latch") / rps(results["d"], "bare-lookup"), 0.9));
  return lines.join("\n");
}

async function main(): Promise<void> {
  ensureTools();
  print(`latch bench: node ${process.version}, ${cpus()[0]?.model ?? "?"} x${cpus().length}, ${new Date().toISOString()}`);
  const busy = loadavg()[0] ?? 0;
  if (busy > 0.5)
    print(`warning: load average ${busy.toFixed(2)} before the run; other processes compete for the cores (see the srv cpu column)`);
  print(
    `load: autocannon, ${load.connections} connections, pipelining ${load.pipelining}; ${load.warmup} s warm-up per server, ` +
      `${load.duration} s measured per server and scenario in ${load.slices} interleaved slices; servers on core 0, autocannon on core 1`,
  );
  const results: Record<string, Row[]> = {};
  await runHTTP(results);
  await runSession(results);
  const passkey = await runPasskey();
  print("");
  for (const s of SCENARIOS) if (results[s.key] !== undefined) print(table(s.title, results[s.key] ?? [], "node:http") + "\n");
  if (results["d"] !== undefined)
    print(table("(d) authenticated GET /me (cookie -> sha256 -> session row)", results["d"], "bare-lookup") + "\n");
  if (passkey !== undefined) print(passkeyTable(passkey));
  const extra: ExtraResult[] = [];
  const step = async (key: string, title: string, run: () => Promise<ExtraResult>): Promise<void> => {
    if (!only.has(key)) return;
    print(`  ${title}...`);
    extra.push(await run());
  };
  await step("f", "(f) SSE streams", () => extraSSE(envNumber("BENCH_SSE_STREAMS", 10000), envNumber("BENCH_SSE_SECONDS", 30)));
  await step("g", "(g) slow connections", () => extraSlow());
  await step("h", "(h) cold start", () => extraCold(Math.max(1, Math.round(envNumber("BENCH_COLD_RUNS", 7)))));
  await step("i", "(i) passkey burst", () => extraBurst(envNumber("BENCH_BURST_SECONDS", 10)));
  await step("j", "(j) starvation attacks", () => extraStarve(envNumber("BENCH_STARVE_SECONDS", 20)));
  await step("l", "(l) search and CSV export", () => extraSearch(Math.max(1, Math.round(envNumber("BENCH_SEARCH_RUNS", 200)))));
  await step("n", "(n) CSV import", async () => {
    const result = await benchImport();
    return { key: "n", table: importTable(result), summary: importSummary(result), raw: result };
  });
  for (const e of extra) print("\n" + e.table);
  print(summary(results, passkey));
  for (const e of extra) for (const line of e.summary) print(line);
  const json = process.env["BENCH_JSON"];
  if (json !== undefined) {
    const raw = Object.fromEntries(extra.map((e) => [e.key, e.raw]));
    writeFileSync(
      json,
      JSON.stringify({ date: new Date().toISOString(), node: process.version, load, results, passkey, extra: raw }, null, 2) + "\n",
    );
  }
}

await main();
