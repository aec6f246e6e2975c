/*
 * Slow connections against a 1,024 file limit: the server runs under
 * `prlimit --nofile=1024:1024`; 1,000 clients, each from its own loopback
 * address (127.1.x.y), open a connection and send half a request head, and
 * hold it. Then 25 `GET /healthz` probes go out one after the other, each
 * given 2 s. Measured twice: "before" is the same Handler on a bare
 * `http.createServer` (no cap: accept fails with EMFILE once the file limit
 * is reached and the probes wait in the backlog), "after" is `Serve` with its
 * default caps (MaxConnections = 1,024 - 128: at the cap the longest-idle
 * slow connection is evicted). Reported: probes answered, their median and
 * slowest latency, and how many slow connections the server had closed.
 *
 * Usage: node dist/scripts/bench-slow.js [slow connections, 1000]   (prints JSON)
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const PROBES = 25;
const FILE_LIMIT = 1024;

/** One run of the scenario. */
export interface SlowRun {
  server: "before" | "after";
  held: number;
  closedByServer: number;
  answered: number;
  probes: number;
  p50Ms: number | undefined;
  maxMs: number | undefined;
}

/** Both runs, and how the file limit was applied. */
export interface SlowBench {
  limit: string;
  runs: SlowRun[];
}

async function start(mode: "serve" | "plain", limited: boolean): Promise<{ child: ChildProcess; port: number }> {
  const node = [process.execPath, join(ROOT, "dist/scripts/bench-servers/serve-probe.js"), mode];
  const child = limited
    ? spawn("prlimit", [`--nofile=${FILE_LIMIT}:${FILE_LIMIT}`, ...node], { stdio: ["ignore", "pipe", "ignore"] })
    : spawn(node[0] ?? "", node.slice(1), { stdio: ["ignore", "pipe", "ignore"] });
  const port = await new Promise<number>((resolve, reject) => {
    let text = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      const m = /\{"port":(\d+)\}/.exec(text);
      if (m?.[1] !== undefined) resolve(Number(m[1]));
    });
    child.once("exit", (code) => reject(new Error(`serve-probe exited ${code}`)));
  });
  return { child, port };
}

function holdSlow(port: number, i: number, closed: { n: number }): Promise<Socket | undefined> {
  return new Promise((resolve) => {
    const localAddress = `127.1.${Math.floor(i / 250)}.${1 + (i % 250)}`;
    const socket = connect({ port, host: "127.0.0.1", localAddress }, () => {
      socket.write("GET /slow HTTP/1.1\r\nHost: localhost\r\n");
      resolve(socket);
    });
    socket.on("error", () => resolve(undefined));
    socket.on("close", () => closed.n++);
    socket.setTimeout(3000, () => resolve(undefined));
  });
}

function probe(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const socket = connect(port, "127.0.0.1", () => socket.write("GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"));
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(undefined);
    }, 2000);
    socket.once("data", (chunk: Buffer) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(chunk.toString("latin1").startsWith("HTTP/1.1 200 ") ? performance.now() - t0 : undefined);
    });
    socket.once("error", () => {
      clearTimeout(timer);
      resolve(undefined);
    });
  });
}

async function runOne(server: "before" | "after", limited: boolean, slow: number): Promise<SlowRun> {
  const { child, port } = await start(server === "after" ? "serve" : "plain", limited);
  const closed = { n: 0 };
  const sockets: Socket[] = [];
  try {
    for (let i = 0; i < slow; i += 100) {
      const batch = await Promise.all(Array.from({ length: Math.min(100, slow - i) }, (_, k) => holdSlow(port, i + k, closed)));
      for (const s of batch) if (s !== undefined) sockets.push(s);
    }
    await sleep(500);
    const times: number[] = [];
    for (let p = 0; p < PROBES; p++) {
      const ms = await probe(port);
      if (ms !== undefined) times.push(ms);
    }
    times.sort((a, b) => a - b);
    const round = (x: number | undefined): number | undefined => (x === undefined ? undefined : Math.round(x * 10) / 10);
    return {
      server,
      held: sockets.length,
      closedByServer: closed.n,
      answered: times.length,
      probes: PROBES,
      p50Ms: round(times[Math.floor(times.length / 2)]),
      maxMs: round(times.at(-1)),
    };
  } finally {
    for (const s of sockets) s.destroy();
    child.kill("SIGKILL");
  }
}

/** Runs "before" and "after" with `slow` slow connections. */
export async function benchSlow(slow = 1000): Promise<SlowBench> {
  const limited = spawnSync("prlimit", ["--version"]).error === undefined;
  const runs = [await runOne("before", limited, slow), await runOne("after", limited, slow)];
  return { limit: limited ? `prlimit --nofile=${FILE_LIMIT}:${FILE_LIMIT}` : "none (prlimit missing: the process's own limit)", runs };
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  process.stdout.write(JSON.stringify(await benchSlow(Number(process.argv[2] ?? "1000"))) + "\n");
