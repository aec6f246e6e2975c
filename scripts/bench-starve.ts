/*
 * No client starves the others (issue 22): latch's `Serve`, as an
 * application runs it (scripts/bench-servers/starve-app.ts), spawned under
 * `ulimit -n 1024`, attacked in turn, a fresh server for each attack:
 *
 *   (a) 1,000 slow-header connections from one address
 *   (b) 1,000 slow-header connections from 1,000 addresses
 *   (c) 900 slow `POST /signin` bodies from 22 addresses (a byte a second)
 *   (d) 1,000 job event streams from 100 accounts (10 each, an address each)
 *   (e) 2,000 idle keep-alive connections from 2,000 addresses
 *   (f) 50 form bodies sent in 20,000 one-byte segments each
 *   (g) 900 `GET /oauth/authorize` from 22 addresses naming client metadata
 *       documents that never arrive, each a URL of its own (issue 36)
 *   (h) the same, all naming one shared URL
 *   (i) 900 `GET /download` (1 MiB each) from 22 addresses, never read
 *
 * The documents of (g) and (h) are served by the attackers' process: an
 * http server on loopback that accepts and never answers (the server runs
 * with a loopback origin and the attackers come over loopback, so it
 * fetches from this machine, as the demo's defaults let it). The server's
 * open file descriptors (/proc/<pid>/fd) are counted with its RSS; the
 * highest is reported.
 *
 * Attackers bind 127.x.y.z with `localAddress` (all of 127/8 is loopback on
 * Linux) and open their connection again a second after the server closes
 * it, for as long as the attack lasts. They run in a process of their own
 * (this script, `--besiege`), so that the probes' timings are the
 * server's, not the attackers' event loop (a million one-byte writes in
 * (f) kept the probes' replies waiting in this process). Once the attack is in place, a
 * `GET /healthz` probe goes out from 127.0.0.1 every 250 ms for PROBE_SECONDS;
 * a probe counts as answered when its 200 arrives within 1 s. The server's
 * RSS (/proc/<pid>/status) is read before the attack, every second during
 * it (the highest is reported) and SETTLE_SECONDS after every attacker has
 * closed: V8 hands the heap an attack grew back to the system only once its
 * memory reducer runs on an idle process, several seconds later (measured:
 * (c) was still 117 MB after 5 s and 63.5 MB, from 59.3, after 40 s).
 * An idle process allocates nothing, so a collection may never come: the
 * server runs with `--expose-gc`, and after that reading it is told
 * (SIGUSR2) to collect its garbage and report `process.memoryUsage()`,
 * as it is told before the attack: RSS after that collection, and the
 * live heap (heapUsed + external) before and after, are the memory the
 * server holds, garbage apart. What RSS keeps above that is memory the C
 * allocator (glibc malloc) has been given back but keeps for reuse; with
 * `gdb` on the machine the bench then calls `malloc_trim(0)` in the server
 * and reads RSS once more ("after trim"), which tells the two apart.
 * The bench process itself needs a file limit above 2,100.
 *
 * Usage: node dist/scripts/bench-starve.js [probe seconds, 20]   (prints JSON)
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** The file limit the server runs under. */
export const FILE_LIMIT = 1024;
const PROBE_EVERY_MS = 250;
const PROBE_DEADLINE_MS = 1000;
const RECONNECT_MS = 1000;
const SETTLE_SECONDS = 40;

/** One attack's results. */
export interface StarveRun {
  key: string;
  attack: string;
  /** Attacker connections open when the probes began. */
  held: number;
  probes: number;
  answered: number;
  /** Answered with a 200 within 1 s. */
  withinDeadline: number;
  p50Ms: number | undefined;
  maxMs: number | undefined;
  rssBeforeMB: number;
  rssDuringMB: number;
  rssAfterMB: number;
  /** RSS after the server collected its garbage, once the attackers closed. */
  rssAfterGcMB: number;
  /** heapUsed + external after a collection, before the attack and after it. */
  /** RSS after glibc's malloc_trim(0), when gdb is there to call it. */
  rssAfterTrimMB: number | undefined;
  liveBeforeMB: number;
  liveAfterMB: number;
  /** The server's longest event-loop delay while the probes ran (ms): its own stall, apart from the machine's load. */
  loopMaxMs: number;
  /** The most file descriptors the server held during the attack. */
  fdsMax: number;
}

interface Memory {
  rss: number;
  heapUsed: number;
  external: number;
}

/** How one attacker connection behaves once connected. */
type Attacker = (socket: Socket) => void;

interface Attack {
  key: string;
  title: string;
  count: number;
  /** The local address of attacker `i`. */
  address: (i: number) => string;
  attacker: (i: number) => Attacker;
}

const host = (n: number, block: number): string => `127.${block}.${Math.floor(n / 250)}.${1 + (n % 250)}`;
const hold =
  (text: string): Attacker =>
  (socket) =>
    socket.write(text);
const trickle: Attacker = (socket) => {
  socket.write(
    "POST /signin HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\n",
  );
  const timer = setInterval(() => socket.write("a"), 1000);
  socket.once("close", () => clearInterval(timer));
};
const segments: Attacker = (socket) => {
  socket.setNoDelay(true);
  socket.write(
    "POST /signin HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n",
  );
  let sent = 0;
  const step = (): void => {
    if (socket.destroyed) return;
    for (let k = 0; k < 50 && sent < 20_000; k++, sent++) socket.write("1\r\na\r\n");
    if (sent < 20_000) setImmediate(step);
    else socket.write("0\r\n\r\n");
  };
  step();
};

// The port of the attackers' own never-answering document server (--besiege mode), and a counter for distinct URLs.
let hangingPort = 0;
let documentsNamed = 0;
const authorize = (path: string): string =>
  `GET /oauth/authorize?client_id=${encodeURIComponent(`http://localhost:${hangingPort}${path}`)} HTTP/1.1\r\nHost: localhost\r\n\r\n`;
const unread: Attacker = (socket) => {
  socket.pause();
  socket.write("GET /download HTTP/1.1\r\nHost: localhost\r\n\r\n");
};

/** The attacks (a)-(i). */
export const ATTACKS: Attack[] = [
  {
    key: "a",
    title: "1,000 slow-header connections from one address",
    count: 1000,
    address: () => "127.1.0.1",
    attacker: () => hold("GET / HTTP/1.1\r\nHost: localhost\r\n"),
  },
  {
    key: "b",
    title: "1,000 slow-header connections from 1,000 addresses",
    count: 1000,
    address: (i) => host(i, 2),
    attacker: () => hold("GET / HTTP/1.1\r\nHost: localhost\r\n"),
  },
  {
    key: "c",
    title: "900 slow POST /signin bodies from 22 addresses",
    count: 900,
    address: (i) => host(i % 22, 3),
    attacker: () => trickle,
  },
  {
    key: "d",
    title: "1,000 event streams from 100 accounts",
    count: 1000,
    address: (i) => host(i % 100, 4),
    attacker: (i) => hold(`GET /events HTTP/1.1\r\nHost: localhost\r\nX-Account: account-${i % 100}\r\n\r\n`),
  },
  {
    key: "e",
    title: "2,000 idle keep-alive connections from 2,000 addresses",
    count: 2000,
    address: (i) => host(i, 5),
    attacker: () => hold("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n"),
  },
  {
    key: "f",
    title: "50 form bodies in 20,000 one-byte segments each",
    count: 50,
    address: (i) => host(i, 6),
    attacker: () => segments,
  },
  {
    key: "g",
    title: "900 hanging client metadata documents, distinct URLs",
    count: 900,
    address: (i) => host(i % 22, 7),
    attacker: () => (socket) => socket.write(authorize(`/doc/${documentsNamed++}`)),
  },
  {
    key: "h",
    title: "900 hanging client metadata documents, one URL",
    count: 900,
    address: (i) => host(i % 22, 8),
    attacker: () => (socket) => socket.write(authorize("/doc/shared")),
  },
  {
    key: "i",
    title: "900 unread 1 MiB downloads from 22 addresses",
    count: 900,
    address: (i) => host(i % 22, 9),
    attacker: () => unread,
  },
];

function fds(pid: number | undefined): number {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return NaN;
  }
}

function rssMB(pid: number | undefined): number {
  try {
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return Math.round((Number(kb) / 1024) * 10) / 10;
  } catch {
    return NaN;
  }
}

// RSS after glibc's malloc_trim(0) in `pid` (gdb attaches, calls it, detaches); undefined without gdb.
function rssAfterTrimMB(pid: number | undefined): number | undefined {
  try {
    execFileSync("gdb", ["-p", String(pid), "-batch", "-ex", "call (int) malloc_trim(0)"], { stdio: "ignore" });
    return rssMB(pid);
  } catch {
    return undefined;
  }
}

const MB = (bytes: number): number => Math.round((bytes / 1024 / 1024) * 10) / 10;

async function start(): Promise<{ child: ChildProcess; port: number; memory: () => Promise<Memory>; loopDelay: () => Promise<number> }> {
  const app = join(ROOT, "dist/scripts/bench-servers/starve-app.js");
  // `exec` keeps the pid: the RSS read is the server's.
  const child = spawn("sh", ["-c", `ulimit -n ${FILE_LIMIT} && exec "$0" --expose-gc "$1"`, process.execPath, app], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let text = "";
  let waiting: ((m: Memory) => void) | undefined;
  let waitingDelay: ((ms: number) => void) | undefined;
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      const m = /\{"port":(\d+)\}/.exec(text);
      if (m?.[1] !== undefined) resolve(Number(m[1]));
      const delay = /\{"delay":\{"maxMs":(\d+)\}\}\n/.exec(text);
      if (delay?.[1] !== undefined) {
        text = text.slice(delay.index + delay[0].length);
        waitingDelay?.(Number(delay[1]));
      }
      const memory = /\{"memory":(\{[^}]*\})\}\n/.exec(text);
      if (memory?.[1] !== undefined) {
        text = text.slice(memory.index + memory[0].length);
        waiting?.(JSON.parse(memory[1]) as Memory);
      }
    });
    child.once("exit", (code) => reject(new Error(`starve-app exited ${code}`)));
  });
  const memory = (): Promise<Memory> =>
    new Promise((resolve) => {
      waiting = resolve;
      child.kill("SIGUSR2");
    });
  const loopDelay = (): Promise<number> =>
    new Promise((resolve) => {
      waitingDelay = resolve;
      child.kill("SIGHUP");
    });
  return { child, port, memory, loopDelay };
}

/** Keeps `attack.count` attacker connections open (each reopened RECONNECT_MS after it closes) until `stop`. */
function besiege(port: number, attack: Attack): { open: () => number; stop: () => void } {
  const sockets = new Set<Socket>();
  let running = true;
  const open = (i: number): void => {
    if (!running) return;
    const socket = connect({ port, host: "127.0.0.1", localAddress: attack.address(i) }, () => attack.attacker(i)(socket));
    sockets.add(socket);
    socket.on("data", () => {});
    socket.on("error", () => {});
    socket.once("close", () => {
      sockets.delete(socket);
      if (running) setTimeout(() => open(i), RECONNECT_MS).unref();
    });
  };
  // Opened in batches, a turn apart, as a client opens many.
  void (async () => {
    for (let i = 0; i < attack.count && running; i++) {
      open(i);
      if (i % 100 === 99) await sleep(20);
    }
  })();
  return {
    open: () => sockets.size,
    stop: () => {
      running = false;
      for (const s of sockets) s.destroy();
    },
  };
}

/** Runs `besiege` in a child process, which reports its open connections every 250 ms; `stop` ends it, closing them all. */
function besiegeFrom(port: number, attack: Attack): { open: () => number; stop: () => void } {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), "--besiege", String(port), attack.key], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let held = 0;
  let text = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    text += chunk.toString();
    const lines = text.split("\n");
    text = lines.pop() ?? "";
    for (const line of lines) held = (JSON.parse(line) as { held: number }).held;
  });
  return { open: () => held, stop: () => void child.kill("SIGKILL") };
}

function probe(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const socket = connect({ port, host: "127.0.0.1", localAddress: "127.0.0.1" }, () =>
      socket.write("GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"),
    );
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(undefined);
    }, 5_000);
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

async function runAttack(attack: Attack, probeSeconds: number): Promise<StarveRun> {
  const { child, port, memory, loopDelay } = await start();
  try {
    for (let i = 0; i < 5; i++) await probe(port);
    const rssBeforeMB = rssMB(child.pid);
    const before = await memory();
    const siege = besiegeFrom(port, attack);
    await sleep(3_000);
    const held = siege.open();
    let rssDuringMB = rssMB(child.pid);
    let fdsMax = fds(child.pid);
    const sampling = setInterval(() => {
      rssDuringMB = Math.max(rssDuringMB, rssMB(child.pid));
      fdsMax = Math.max(fdsMax, fds(child.pid));
    }, 1000);
    await loopDelay();
    const pending: Promise<number | undefined>[] = [];
    for (let t = 0; t < probeSeconds * 1000; t += PROBE_EVERY_MS) {
      pending.push(probe(port));
      await sleep(PROBE_EVERY_MS);
    }
    const times = (await Promise.all(pending)).filter((ms): ms is number => ms !== undefined).sort((a, b) => a - b);
    const loopMaxMs = await loopDelay();
    clearInterval(sampling);
    rssDuringMB = Math.max(rssDuringMB, rssMB(child.pid));
    siege.stop();
    await sleep(SETTLE_SECONDS * 1000);
    const rssAfterMB = rssMB(child.pid);
    const after = await memory();
    const rssAfterTrim = rssAfterTrimMB(child.pid);
    const round = (x: number | undefined): number | undefined => (x === undefined ? undefined : Math.round(x * 10) / 10);
    return {
      key: attack.key,
      attack: attack.title,
      held,
      probes: pending.length,
      answered: times.length,
      withinDeadline: times.filter((ms) => ms <= PROBE_DEADLINE_MS).length,
      p50Ms: round(times[Math.floor(times.length / 2)]),
      maxMs: round(times.at(-1)),
      rssBeforeMB,
      rssDuringMB,
      rssAfterMB,
      rssAfterGcMB: MB(after.rss),
      rssAfterTrimMB: rssAfterTrim,
      liveBeforeMB: MB(before.heapUsed + before.external),
      liveAfterMB: MB(after.heapUsed + after.external),
      loopMaxMs,
      fdsMax,
    };
  } finally {
    child.kill("SIGKILL");
  }
}

/** Runs the attacks whose keys are in `only` (all by default), one after the other. */
export async function benchStarve(probeSeconds = 20, only?: string[]): Promise<StarveRun[]> {
  const runs: StarveRun[] = [];
  for (const attack of ATTACKS) if (only === undefined || only.includes(attack.key)) runs.push(await runAttack(attack, probeSeconds));
  return runs;
}

/** The table BENCHMARKS.md shows. */
export function starveTable(runs: StarveRun[]): string {
  const lines = [
    `(j) GET /healthz probes from another address during each attack, the server under ulimit -n ${FILE_LIMIT} (scripts/bench-starve.ts)`,
    `attack                                                    held  answered  within 1 s  p50 ms  max ms  loop max ms  fds max  RSS before  during  after  after GC MB  after trim  live before  after MB`,
  ];
  for (const r of runs)
    lines.push(
      `(${r.key}) ${r.attack.padEnd(54)} ${String(r.held).padStart(5)} ${`${r.answered}/${r.probes}`.padStart(9)} ${`${r.withinDeadline}/${r.probes}`.padStart(11)} ${String(r.p50Ms ?? "-").padStart(7)} ${String(r.maxMs ?? "-").padStart(7)} ${String(r.loopMaxMs).padStart(12)} ${String(r.fdsMax).padStart(8)} ${r.rssBeforeMB.toFixed(1).padStart(11)} ${r.rssDuringMB.toFixed(1).padStart(7)} ${r.rssAfterMB.toFixed(1).padStart(6)} ${r.rssAfterGcMB.toFixed(1).padStart(12)} ${(r.rssAfterTrimMB?.toFixed(1) ?? "-").padStart(11)} ${r.liveBeforeMB.toFixed(1).padStart(12)} ${r.liveAfterMB.toFixed(1).padStart(9)}`,
    );
  return lines.join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === "--besiege") {
  const attack = ATTACKS.find((a) => a.key === process.argv[4]);
  if (attack === undefined) throw new Error(`no attack ${process.argv[4]}`);
  const documents = createServer(() => {});
  await new Promise<void>((resolve) => documents.listen(0, "127.0.0.1", resolve));
  hangingPort = (documents.address() as AddressInfo).port;
  const siege = besiege(Number(process.argv[3]), attack);
  setInterval(() => process.stdout.write(JSON.stringify({ held: siege.open() }) + "\n"), 250);
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const runs = await benchStarve(Number(process.argv[2] ?? "20"), process.argv[3]?.split(","));
  process.stdout.write(starveTable(runs) + "\n" + JSON.stringify(runs) + "\n");
}
