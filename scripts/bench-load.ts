/*
 * Runs one server and measures it: the server process pinned to core 0
 * (`taskset -c 0`), the load generator (bench/cannon.mjs, autocannon's
 * API in a child) pinned to core 1, a warm-up, then the measured run. The
 * server's CPU use during the measured run is read from /proc, so the
 * report can show that the server, not the load generator, was the limit.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

/** The repository root (this file runs as dist/scripts/bench-load.js). */
export const ROOT: string = fileURLToPath(new URL("../../", import.meta.url));

/** Load parameters, identical for every server. */
export interface LoadOptions {
  connections: number;
  pipelining: number;
  /** Measured seconds. */
  duration: number;
  /** Warm-up seconds before each measurement (discarded). */
  warmup: number;
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
  const args = ["-c", "0", process.execPath, ...(spec.nodeFlags ?? []), spec.file, ...spec.args];
  const child = spawn("taskset", args, { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] });
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

/**
 * Loads `path` on `server` with `load` and returns the measured run,
 * after a warm-up of `load.warmup` seconds cycling through `warmPaths`
 * (default: `path` alone). `expect` is the status class every measured
 * response must have (2 or 4).
 */
export async function measure(
  server: RunningServer,
  path: string,
  load: LoadOptions,
  expect: 2 | 4,
  headers: Record<string, string> = {},
  warmPaths: string[] = [path],
): Promise<Measurement> {
  const opts = JSON.stringify({ url: `http://127.0.0.1:${server.port}${path}`, ...load, headers, paths: warmPaths });
  const child = spawn("taskset", ["-c", "1", process.execPath, "bench/cannon.mjs", opts], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = firstJSONLine(child, "bench/cannon.mjs");
  await lines.next();
  const cpuStart = cpuSeconds(server.pid);
  const started = performance.now();
  const r = (await lines.next()).value;
  const seconds = (performance.now() - started) / 1000;
  const cpuEnd = cpuSeconds(server.pid);
  child.kill();
  const good = numberField(r, expect === 2 ? "s2xx" : "s4xx");
  return {
    rps: numberField(r, "rps"),
    p50: numberField(r, "p50"),
    p99: numberField(r, "p99"),
    total: numberField(r, "total"),
    bad: numberField(r, "errors") + numberField(r, "timeouts") + Math.max(0, numberField(r, "total") - good),
    serverCPU: cpuStart === undefined || cpuEnd === undefined ? undefined : (cpuEnd - cpuStart) / seconds,
    loadCPU: numberField(r, "cpu"),
  };
}

/** Sends one request and returns its status and body, to check a server answers as the others do. */
export async function probe(port: number, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers });
  return { status: res.status, body: await res.text() };
}
