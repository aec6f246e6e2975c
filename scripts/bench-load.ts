/*
 * Runs servers and measures them: each server process pinned to core 0
 * (`taskset -c 0`), the load generator (bench/cannon.mjs, autocannon's
 * API in a child) pinned to core 1; warm-ups, then measured runs. The
 * server's CPU use during the measured run is read from /proc, so the
 * report can show that the server, not the load generator, was the limit.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

/** The repository root (this file runs as dist/scripts/bench-load.js). */
export const ROOT: string = fileURLToPath(new URL("../../", import.meta.url));

/**
 * Spawns `node args...` pinned to `core`, under `nice -n $BENCH_NICE`
 * when that is set (a negative value, as root, keeps other work on a shared
 * machine from taking the benchmark's cores).
 */
export function pinned(core: number, args: string[]): ChildProcess {
  const nice = process.env["BENCH_NICE"];
  const command = ["taskset", "-c", String(core), process.execPath, ...args];
  const full = nice === undefined || !/^-?[0-9]{1,2}$/.test(nice) ? command : ["nice", "-n", nice, ...command];
  return spawn(full[0] ?? "taskset", full.slice(1), { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] });
}

/** Load parameters, identical for every server. */
export interface LoadOptions {
  connections: number;
  pipelining: number;
  /** Measured seconds per server and scenario, split in `slices`. */
  duration: number;
  /** Warm-up seconds per server (discarded). */
  warmup: number;
  /** Interleaved slices each measurement is split into. */
  slices: number;
}

/** One measurement. */
export interface Measurement {
  rps: number;
  p50: number;
  p99: number;
  total: number;
  /** Requests that errored, timed out or got an unexpected status class. */
  bad: number;
  /** Server CPU use during the measured run, 1 = one full core. */
  serverCPU: number | undefined;
  /** Load generator CPU use during the measured run. */
  loadCPU: number;
}

/** A server under test: a script (relative to ROOT) and its arguments. */
export interface ServerSpec {
  file: string;
  args: string[];
  /** Extra node flags, e.g. `--cpu-prof`. */
  nodeFlags?: string[];
}

/** A running server. */
export interface RunningServer {
  port: number;
  pid: number;
  stop(): Promise<void>;
}

function firstJSONLine(child: ChildProcess, what: string): AsyncIterator<unknown> {
  if (child.stdout === null) throw new Error(`${what}: no stdout`);
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  return {
    next: async () => {
      const line = await lines.next();
      if (line.done === true) throw new Error(`${what}: exited before answering`);
      const value: unknown = JSON.parse(line.value);
      return { done: false, value };
    },
  };
}

function numberField(value: unknown, key: string): number {
  const v = typeof value === "object" && value !== null && key in value ? Reflect.get(value, key) : undefined;
  if (typeof v !== "number") throw new Error(`bench: field ${key} is not a number`);
  return v;
}

/** Starts `spec` pinned to core 0 and waits for the port it announces. */
export async function startServer(spec: ServerSpec): Promise<RunningServer> {
  const child = pinned(0, [...(spec.nodeFlags ?? []), spec.file, ...spec.args]);
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  const port = numberField((await firstJSONLine(child, spec.file).next()).value, "port");
  return {
    port,
    pid: child.pid ?? 0,
    stop: async () => {
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** CPU seconds (user + system) a process has used so far, from /proc; undefined off Linux. */
function cpuSeconds(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // proc(5): utime and stime are fields 14 and 15, in clock ticks (100 Hz on Linux).
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

function cannon(server: RunningServer, path: string, options: object): { child: ChildProcess; lines: AsyncIterator<unknown> } {
  const opts = JSON.stringify({ url: `http://127.0.0.1:${server.port}${path}`, ...options });
  const child = pinned(1, ["bench/cannon.mjs", opts]);
  return { child, lines: firstJSONLine(child, "bench/cannon.mjs") };
}

/** Warms `server` up for `seconds`, every connection cycling through `paths`. */
export async function warm(
  server: RunningServer,
  paths: string[],
  seconds: number,
  load: LoadOptions,
  headers: Record<string, string> = {},
): Promise<void> {
  const { child } = cannon(server, paths[0] ?? "/", { ...load, warmup: seconds, duration: 0, paths, headers });
  await new Promise((resolve) => child.on("exit", resolve));
}

/**
 * Loads `path` on `server` for `seconds` (no warm-up) and returns the
 * run. `expect` is the status class every response must have (2 or 4).
 */
export async function measure(
  server: RunningServer,
  path: string,
  seconds: number,
  load: LoadOptions,
  expect: 2 | 4,
  headers: Record<string, string> = {},
): Promise<Measurement> {
  const { child, lines } = cannon(server, path, { ...load, warmup: 0, duration: seconds, headers });
  await lines.next();
  const cpuStart = cpuSeconds(server.pid);
  const started = performance.now();
  const r = (await lines.next()).value;
  const elapsed = (performance.now() - started) / 1000;
  const cpuEnd = cpuSeconds(server.pid);
  child.kill();
  const good = numberField(r, expect === 2 ? "s2xx" : "s4xx");
  return {
    rps: numberField(r, "rps"),
    p50: numberField(r, "p50"),
    p99: numberField(r, "p99"),
    total: numberField(r, "total"),
    bad: numberField(r, "errors") + numberField(r, "timeouts") + Math.max(0, numberField(r, "total") - good),
    serverCPU: cpuStart === undefined || cpuEnd === undefined ? undefined : (cpuEnd - cpuStart) / elapsed,
    loadCPU: numberField(r, "cpu"),
  };
}

/** The number in environment variable `name`, or `fallback` when it is unset or not a number >= 0. */
export function envNumber(name: string, fallback: number): number {
  const v = Number(process.env[name] ?? "");
  return process.env[name] !== undefined && Number.isFinite(v) && v >= 0 ? v : fallback;
}

/** The median of `values` (the mean of the middle two for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/** Combines the slices of one measurement: medians of req/s and latencies, sums of counts, mean CPU use. */
export function combine(slices: Measurement[]): Measurement {
  const cpu = slices.map((m) => m.serverCPU);
  const known = cpu.filter((c): c is number => c !== undefined);
  return {
    rps: median(slices.map((m) => m.rps)),
    p50: median(slices.map((m) => m.p50)),
    p99: median(slices.map((m) => m.p99)),
    total: slices.reduce((n, m) => n + m.total, 0),
    bad: slices.reduce((n, m) => n + m.bad, 0),
    serverCPU: known.length === slices.length && known.length > 0 ? known.reduce((a, b) => a + b, 0) / known.length : undefined,
    loadCPU: slices.reduce((n, m) => n + m.loadCPU, 0) / Math.max(1, slices.length),
  };
}

/** Sends one request and returns its status and body, to check a server answers as the others do. */
export async function probe(port: number, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers });
  return { status: res.status, body: await res.text() };
}
