/*
 * The demo as the mixed scenario (scripts/bench-mixed.ts) serves it: as shipped (`demoOptions`, the default job step),
 * in a process of its own on the scenario's database file, with its sweep of lapsed sessions, links and rate rows
 * (`Signin.Sweep`, of the demo's ten-minute sweep the part with rows to delete) started by SIGUSR1 and then run
 * every BENCH_MIXED_SWEEP_MS (default 10,000) after the last ended, so a run of seconds sweeps as a day does. Prints `{"port":…}` (routes.ts `announce`), then `{"origin":…}` as a second line.
 *
 * Usage: node dist/scripts/bench-servers/mixed-demo.js <db path> <state directory>
 */
import { Writable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { OpenDB } from "../../lib/db/index.ts";
import { newLogger } from "../../lib/http/index.ts";
import * as signin from "../../lib/signin/index.ts";
import { serveDemo } from "../bench-scale-kit.ts";
import { announce } from "./routes.ts";

const [path, dir] = process.argv.slice(2);
if (path === undefined || dir === undefined) throw new Error("usage: mixed-demo.js <db path> <state directory>");
const db = OpenDB(path);
const demo = await serveDemo(db, dir, {});
const auth = signin.create({
  DB: db,
  Origin: demo.origin,
  InstanceKey: "bench-mixed-sweep-instance-key-not-secret",
  SigninPath: "/signin",
  SignedInPath: "/account",
  Logger: newLogger({ stream: new Writable({ write: (_c, _e, d) => d() }) }),
});
const every = Number(process.env["BENCH_MIXED_SWEEP_MS"] ?? 10_000);
let swept = 0;
/** Sweeps, waits `every` ms, sweeps again: one sweep at a time, as the demo's timer never overlaps a slow one with the next. */
async function sweeping(): Promise<void> {
  for (;;) {
    const counts = await auth.Sweep(new Date());
    swept += Object.values(counts).reduce((a: number, b) => a + Number(b), 0);
    await sleep(every, undefined, { ref: false });
  }
}
// SIGUSR1 starts the sweeps (the mixed traffic; the baselines run without them); SIGUSR2 prints what they deleted.
process.once("SIGUSR1", () => void sweeping());
process.on("SIGUSR2", () => process.stderr.write(`swept ${swept}\n`));
announce(demo.port);
process.stdout.write(JSON.stringify({ origin: demo.origin }) + "\n");
