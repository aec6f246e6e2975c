/*
 * Cold start under socket activation: `systemd-socket-activate` holds the
 * listening socket and starts the server on the first connection (as
 * systemd does for a .socket unit), so the time from that connection to the
 * first byte of the `GET /healthz` answer is what the first visitor waits:
 * node's own start, the module graph, the database and schema, catalogs,
 * assets, prepared statements. Servers: a bare node:http server
 * (scripts/bench-servers/cold-bare.ts), examples/minimal, the demo as
 * `npm start` runs it (about 270 module files) and the demo as its unit ships it
 * (one bundled file, scripts/bundle.ts, under the unit's node flags), each
 * started `runs` times in turn (interleaved), the state directory kept
 * between runs (a restart, not a first install). Reported: the median and
 * the minimum per server, and the ratios to the bare server.
 *
 * Without systemd-socket-activate the equivalent is measured: spawn the
 * server with `--addr` and time from the spawn to the first byte (the
 * listener appears later, so the client retries connecting every 2 ms).
 *
 * Usage: node dist/scripts/bench-cold.js [runs]   (prints JSON)
 * On another Node: put its bin first on PATH, with better-sqlite3 built for it
 * (BENCHMARKS.md, "How to run").
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { connect, createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { median, ROOT } from "./bench-load.ts";
import { shippedDemo } from "./bench-unit.ts";

/** Cold starts of one server, in ms. */
export interface ColdStart {
  label: string;
  medianMs: number;
  minMs: number;
  runs: number[];
}

/** The cold-start benchmark's results. */
export interface ColdBench {
  /** The Node that ran every server (`process.version`): the one on PATH. */
  node: string;
  method: "systemd-socket-activate" | "spawn";
  servers: ColdStart[];
}

/** A server to start: its script (relative to the repository) and node's options before it. */
export interface ColdServer {
  label: string;
  script: string;
  nodeFlags: string[];
}

/** The servers (h) starts: a bare node:http server, examples/minimal, the demo as `npm start` runs it and as shipped. */
export function coldServers(): ColdServer[] {
  const shipped = shippedDemo();
  return [
    { label: "node:http", script: "dist/scripts/bench-servers/cold-bare.js", nodeFlags: [] },
    { label: "examples/minimal", script: "dist/examples/minimal/main.js", nodeFlags: [] },
    { label: "demo (npm start)", script: "dist/examples/demo/main.js", nodeFlags: [] },
    { label: SHIPPED_DEMO, script: shipped.script, nodeFlags: shipped.nodeFlags },
  ];
}

/** The label of the demo as the unit starts it (the bundle, the unit's flags): the one the targets judge. */
export const SHIPPED_DEMO = "demo as shipped";

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Sends GET /healthz and resolves with the ms from `start` to the first byte; retries refused connects when `retry`. */
async function firstByte(port: number, start: number, retry: boolean): Promise<number> {
  for (;;) {
    const result = await new Promise<number | "refused">((resolve, reject) => {
      const socket = connect(port, "127.0.0.1", () =>
        socket.write("GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"),
      );
      socket.once("data", () => {
        resolve(performance.now() - start);
        socket.destroy();
      });
      socket.once("error", (err: NodeJS.ErrnoException) => (err.code === "ECONNREFUSED" && retry ? resolve("refused") : reject(err)));
    });
    if (result !== "refused") return result;
    await sleep(2);
  }
}

async function once(server: ColdServer, state: string, activated: boolean): Promise<number> {
  const port = await freePort();
  const env = {
    ...process.env,
    STATE_DIRECTORY: state,
    INSTANCE_KEY: "bench-cold-start-instance-key-0123456789",
    ORIGIN: `http://localhost:${port}`,
  };
  const node = [process.execPath, ...server.nodeFlags, join(ROOT, server.script)];
  // The activator passes on only the variables it is told to (-E NAME).
  const pass = ["STATE_DIRECTORY", "INSTANCE_KEY", "ORIGIN"].flatMap((name) => ["-E", name]);
  const args = activated ? ["-l", `127.0.0.1:${port}`, ...pass, ...node] : [...node.slice(1), "--addr", `127.0.0.1:${port}`];
  const child = spawn(activated ? "systemd-socket-activate" : process.execPath, args, { env, stdio: ["ignore", "ignore", "pipe"] });
  try {
    if (activated) {
      // The activator prints "Listening on ..." once the socket is bound; the server starts on the first connection.
      await new Promise<void>((resolve, reject) => {
        let text = "";
        child.stderr.on("data", (chunk: Buffer) => (text += chunk.toString()).includes("Listening on") && resolve());
        child.once("exit", (code) => reject(new Error(`activator exited ${code}: ${text}`)));
      });
      return await firstByte(port, performance.now(), false);
    }
    return await firstByte(port, performance.now(), true);
  } finally {
    child.kill("SIGTERM");
    await new Promise((resolve) => (child.exitCode !== null ? resolve(undefined) : child.once("exit", resolve)));
  }
}

/** One cold start of `server` on the state directory `state`, in ms (bench-scale's cold start with a 1 GB database). */
export async function coldStart(server: ColdServer, state: string): Promise<number> {
  return once(server, state, spawnSync("systemd-socket-activate", ["--version"]).error === undefined);
}

/** Runs every server `runs` times (after one unmeasured start each) and returns the timings. */
export async function benchCold(runs = 7): Promise<ColdBench> {
  const activated = spawnSync("systemd-socket-activate", ["--version"]).error === undefined;
  const list = coldServers();
  const states = list.map(() => mkdtempSync(join(tmpdir(), "latch-cold-")));
  try {
    const times: number[][] = list.map(() => []);
    for (let round = -1; round < runs; round++) {
      for (const [i, s] of list.entries()) {
        const ms = await once(s, states[i] ?? "", activated);
        if (round >= 0) times[i]?.push(Math.round(ms * 10) / 10);
      }
    }
    return {
      node: process.version,
      method: activated ? "systemd-socket-activate" : "spawn",
      servers: list.map((s, i) => ({
        label: s.label,
        medianMs: median(times[i] ?? []),
        minMs: Math.min(...(times[i] ?? [])),
        runs: times[i] ?? [],
      })),
    };
  } finally {
    for (const dir of states) rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const n = Number(process.argv[2] ?? "7");
  process.stdout.write(JSON.stringify(await benchCold(Number.isInteger(n) && n > 0 ? n : 7)) + "\n");
}
