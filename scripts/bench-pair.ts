/*
 * The servers of (d), or of (b), side by side: all of them pinned to core 0
 * at once, each loaded by its own autocannon (all on core 1) with the same
 * connections, for the same seconds. Each one's cost is its server CPU time
 * per answered request; what a shared machine does to the core in those
 * seconds (another guest, a frequency change) falls on every server alike,
 * so the ratio of two costs in one round moves far less than the ratio of
 * throughputs measured one after the other, as (b) and (d) measure them. It
 * can resolve a change of 2-3% on the 2-core machine where (d) moves ±8% from
 * run to run (BENCHMARKS.md, "(d) An authenticated request").
 *
 * A first round, run and discarded, lets the servers settle after their
 * warm-up (its ratios were 0.6-0.9 of the later rounds'). The first
 * server is the reference.
 *
 * `BENCH_ONLY=d` (the default): `GET /me` with the session cookie, by default
 * on bare-lookup and latch. Any other server script taking the database path
 * (another build's `latch-session.js`, to compare two commits) can be named
 * instead. `BENCH_ONLY=b`: `GET /users/42`, by default on node:http+rawheaders,
 * latch, fastify+headers and hono+headers; a server is named as
 * `file[:argument]`.
 *
 * Usage: node dist/scripts/bench-pair.js [rounds] [server.js ...]
 *   BENCH_ONLY (b or d, d), BENCH_DURATION (s a round, 4), BENCH_CONNECTIONS (per server, 50)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { envNumber, median, measure, startServer, warm, type LoadOptions, type RunningServer, type ServerSpec } from "./bench-load.ts";
import { BENCH_COOKIE, ME_PATH, seedSessionDB } from "./bench-servers/session-db.ts";

const routed = process.env["BENCH_ONLY"] === "b";
const DEFAULT_SERVERS = routed
  ? [
      "dist/scripts/bench-servers/bare.js:rawheaders",
      "dist/scripts/bench-servers/latch.js",
      "bench/fastify.mjs:headers",
      "bench/hono.mjs:headers",
    ]
  : ["dist/scripts/bench-servers/bare-session.js", "dist/scripts/bench-servers/latch-session.js"];
const path = routed ? "/users/42" : ME_PATH;

const rounds = Math.max(1, Math.round(Number(process.argv[2] ?? 6)) || 6);
const files = process.argv.length > 3 ? process.argv.slice(3) : DEFAULT_SERVERS;
const seconds = envNumber("BENCH_DURATION", 4);
const load: LoadOptions = { connections: envNumber("BENCH_CONNECTIONS", 50), pipelining: 1, duration: seconds, warmup: 3, slices: 1 };

/** How to start the server named `name`: (d)'s take the database path, (b)'s their `:argument`. */
function serverSpec(name: string, db: string): ServerSpec {
  if (!routed) return { file: name, args: [db] };
  const [file = name, argument] = name.split(":");
  return { file, args: argument === undefined ? [] : [argument] };
}

const dir = mkdtempSync(join(tmpdir(), "latch-pair-"));
const servers: RunningServer[] = [];
try {
  const db = join(dir, "bench.db");
  const headers: Record<string, string> = routed
    ? {}
    : { Cookie: `theme=dark; ${BENCH_COOKIE}=${seedSessionDB(db, "bench@example.com")}; lang=en` };
  for (const name of files) servers.push(await startServer(serverSpec(name, db)));
  await Promise.all(servers.map((s) => warm(s, [path], load.warmup, load, headers)));
  const costs: number[][] = servers.map(() => []);
  for (let round = -1; round < rounds; round++) {
    const runs = await Promise.all(servers.map((s) => measure(s, path, seconds, load, 2, headers)));
    if (round < 0) continue;
    for (const [i, m] of runs.entries()) {
      if (m.bad > 0 || m.serverCPU === undefined) throw new Error(`bench-pair: ${files[i]}: ${m.bad} bad answers, cpu ${m.serverCPU}`);
      costs[i]?.push((1e6 * m.serverCPU) / m.rps);
    }
  }
  const reference = costs[0] ?? [];
  console.log(`server CPU µs per request, ${rounds} rounds of ${seconds} s, all servers at once on core 0 (node ${process.version})`);
  for (const [i, file] of files.entries()) {
    const mine = costs[i] ?? [];
    const ratios = mine.map((c, r) => (reference[r] ?? 0) / c);
    console.log(
      `${file.padEnd(52)} median ${median(mine).toFixed(1).padStart(6)}  ${files[0]} cost / this: ${median(ratios).toFixed(3)}x` +
        ` (rounds ${ratios.map((x) => x.toFixed(2)).join(" ")})`,
    );
  }
} finally {
  for (const s of servers) await s.stop();
  rmSync(dir, { recursive: true, force: true });
}
