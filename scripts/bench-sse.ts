/*
 * Benchmark of the job event stream: how much server memory one open
 * stream costs and whether heartbeats reach every stream. The server (this
 * process) runs the Events handler for one running job; a child process
 * opens `streams` raw HTTP connections (so client memory is not counted),
 * holds them `seconds`, and counts `: ping` lines per connection.
 *
 * Reported: server RSS and V8 heap before the streams open, once they are
 * all open and at the end; RSS and heap per stream; the event loop's delay
 * while the streams are held (p99 and maximum from monitorEventLoopDelay),
 * the longest garbage-collection pause in that time, and the longest stall
 * not overlapping a collection: a 1 ms timer samples the loop, and of the
 * gaps between two samples that no GC pause overlaps, the largest CPU time
 * the process used within one gap is the longest the application's own work
 * (a heartbeat fan-out) held the loop; counting CPU time rather than wall
 * time leaves out the time other processes took the core. The
 * streams open in batches of 500, so that many heartbeats fall due together;
 * and the heartbeat delivery ratio (pings
 * received / pings expected, where a stream open for d ms expects
 * floor(d / heartbeatMs) pings, and pings due are given 2 s to arrive).
 *
 * Usage: node --expose-gc dist/scripts/bench-sse.js [streams] [seconds] [heartbeatMs] [--bare] [--demo-heap]
 * (--demo-heap: V8's young generation as the demo's process keeps it.)
 * Each side needs a file-descriptor limit above `streams` (`ulimit -n`).
 */
import { fork } from "node:child_process";
import { monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks";
import { createServer, type ServerResponse } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { discardLogger } from "../lib/http/index.ts";
import { newHandlers, Registry } from "../lib/jobs/index.ts";
import { keepYoungGenerationSmall } from "../examples/demo/young-generation.ts";

/** Options of `benchSSE`. */
export interface BenchOptions {
  /** Concurrent streams. @default 10000 */
  streams?: number;
  /** How long the streams are held once all are open, in seconds. @default 30 */
  seconds?: number;
  /** Heartbeat interval, in ms. @default 15000 (HEARTBEAT_INTERVAL) */
  heartbeatMs?: number;
  /**
   * Serve the baseline instead of latch: node:http writing the same headers,
   * `retry:` and a `: ping` per heartbeat (one timer per stream), nothing else.
   */
  bare?: boolean;
}

/** Results of `benchSSE`. */
export interface BenchResult {
  streams: number;
  opened: number;
  failed: number;
  rssBeforeMB: number;
  rssOpenMB: number;
  rssEndMB: number;
  rssPerStreamKB: number;
  heapPerStreamKB: number;
  loopDelayMaxMs: number;
  loopDelayP99Ms: number;
  gcMaxMs: number;
  stallWithoutGCMs: number;
  pingsReceived: number;
  pingsExpected: number;
  deliveryRatio: number;
  advice: string;
}

interface ClientReport {
  opened: number;
  failed: number;
  errors: string[];
  received: number;
  expected: number;
}

const MB = 1024 * 1024;
const GRACE_MS = 2000;

/** Runs the benchmark and returns its numbers. */
export async function benchSSE(options: BenchOptions = {}): Promise<BenchResult> {
  const streams = options.streams ?? 10000;
  const seconds = options.seconds ?? 30;
  const heartbeatMs = options.heartbeatMs ?? 15000;
  const jobs = new Registry(discardLogger, { maxRuntime: (seconds + 600) * 1000 });
  const job = jobs.Start("bench", "bench", (signal) => new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve())));
  const h = newHandlers({
    Jobs: jobs,
    Render: () => {},
    RenderFragment: () => {},
    Owner: (req) => (typeof req.headers["x-owner"] === "string" ? req.headers["x-owner"] : undefined),
    ID: () => job.ID,
    HeartbeatInterval: heartbeatMs,
    StreamLifetime: (seconds + 600) * 1000,
    // One owner holds every stream here; the per-owner cap is measured by the tests.
    MaxStreamsPerOwner: streams,
  });
  const bareStream = (res: ServerResponse): void => {
    res.writeHead(200, {
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-cache, no-transform",
      "X-Accel-Buffering": "no",
    });
    res.write("retry: 3000\n\n");
    const beat = setInterval(() => res.write(": ping\n\n"), heartbeatMs);
    res.on("close", () => clearInterval(beat));
  };
  const server = createServer(options.bare === true ? (_req, res) => bareStream(res) : (req, res) => void h.Events(req, res));
  const serverErrors: string[] = [];
  server.on("error", (e) => serverErrors.push(String(e)));
  await new Promise<void>((resolve) => server.listen({ port: 0, host: "127.0.0.1", backlog: 4096 }, resolve));
  const { port } = server.address() as AddressInfo;
  globalThis.gc?.();
  const rssBefore = process.memoryUsage().rss;
  const heapBefore = process.memoryUsage().heapUsed;
  let rssOpen = rssBefore;
  let heapOpen = heapBefore;

  const child = fork(fileURLToPath(import.meta.url), ["--client", String(port), String(streams), String(seconds), String(heartbeatMs)], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const delay = monitorEventLoopDelay({ resolution: 1 });
  const stalls = sampleStalls();
  const report = await new Promise<ClientReport>((resolve, reject) => {
    child.on("message", (m: unknown) => {
      if (m === "open") {
        globalThis.gc?.();
        rssOpen = process.memoryUsage().rss;
        heapOpen = process.memoryUsage().heapUsed;
        delay.enable();
        stalls.start();
      } else {
        const parsed = readReport(m);
        if (parsed !== undefined) resolve(parsed);
      }
    });
    child.on("exit", (code) => reject(new Error(`bench client exited with ${code}`)));
  });
  delay.disable();
  const { gcMaxMs, stallWithoutGCMs } = stalls.stop();
  globalThis.gc?.();
  const rssEnd = process.memoryUsage().rss;
  child.kill();
  jobs.Shutdown();
  server.closeAllConnections();
  server.close();
  const errors = [...report.errors, ...serverErrors];
  return {
    streams,
    opened: report.opened,
    failed: report.failed,
    rssBeforeMB: round(rssBefore / MB),
    rssOpenMB: round(rssOpen / MB),
    rssEndMB: round(rssEnd / MB),
    rssPerStreamKB: report.opened === 0 ? 0 : round((rssOpen - rssBefore) / 1024 / report.opened),
    heapPerStreamKB: report.opened === 0 ? 0 : round((heapOpen - heapBefore) / 1024 / report.opened),
    // The histogram counts the timer's own 1 ms resolution in every sample.
    loopDelayMaxMs: round(delay.max / 1e6 - 1),
    loopDelayP99Ms: round(delay.percentile(99) / 1e6 - 1),
    gcMaxMs: round(gcMaxMs),
    stallWithoutGCMs: round(stallWithoutGCMs),
    pingsReceived: report.received,
    pingsExpected: report.expected,
    deliveryRatio: report.expected === 0 ? 0 : round(report.received / report.expected, 4),
    advice: errors.some((e) => e.includes("EMFILE"))
      ? "EMFILE: raise the file-descriptor limit (ulimit -n) above the stream count on both sides"
      : errors.slice(0, 3).join("; "),
  };
}

// Samples the loop with a 1 ms timer; records GC pauses to tell the two kinds of stall apart.
function sampleStalls(): { start(): void; stop(): { gcMaxMs: number; stallWithoutGCMs: number } } {
  const gcs: [number, number][] = [];
  // [start, end, CPU ms used in between]
  const gaps: [number, number, number][] = [];
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gcs.push([e.startTime, e.startTime + e.duration]);
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  let last = 0;
  let lastCPU = process.cpuUsage();
  const tick = (): void => {
    const now = performance.now();
    const cpu = process.cpuUsage(lastCPU);
    gaps.push([last, now, (cpu.user + cpu.system) / 1000]);
    last = now;
    lastCPU = process.cpuUsage();
    timer = setTimeout(tick, 1);
  };
  return {
    start() {
      observer.observe({ entryTypes: ["gc"] });
      last = performance.now();
      lastCPU = process.cpuUsage();
      timer = setTimeout(tick, 1);
    },
    stop() {
      clearTimeout(timer);
      observer.disconnect();
      const clean = gaps.filter(([a, b]) => !gcs.some(([s, e]) => s < b && e > a));
      return {
        gcMaxMs: Math.max(0, ...gcs.map(([s, e]) => e - s)),
        // The process's CPU time within one gap, at most the gap itself (the CPU clock is coarser).
        stallWithoutGCMs: Math.max(0, ...clean.map(([a, b, cpu]) => Math.min(cpu, b - a))),
      };
    },
  };
}

function readReport(m: unknown): ClientReport | undefined {
  if (typeof m !== "object" || m === null) return undefined;
  if (!("opened" in m && "failed" in m && "errors" in m && "received" in m && "expected" in m)) return undefined;
  const { opened, failed, errors, received, expected } = m;
  if (typeof opened !== "number" || typeof failed !== "number" || typeof received !== "number" || typeof expected !== "number")
    return undefined;
  if (!Array.isArray(errors)) return undefined;
  return { opened, failed, errors: errors.map(String), received, expected };
}

function round(n: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

// The client half, in its own process: opens the streams in batches so the
// listen backlog is not overrun, then counts pings per connection.
async function runClient(port: number, streams: number, seconds: number, heartbeatMs: number): Promise<void> {
  const sockets: { openedAt: number; pings: number }[] = [];
  const errors = new Set<string>();
  let failed = 0;
  const request = "GET /jobs/bench/events HTTP/1.1\r\nHost: 127.0.0.1\r\nx-owner: bench\r\nAccept: text/event-stream\r\n\r\n";
  const openOne = (): Promise<void> =>
    new Promise((resolve) => {
      const s = connect(port, "127.0.0.1");
      const stat = { openedAt: 0, pings: 0 };
      let tail = "";
      s.setEncoding("latin1");
      s.on("connect", () => s.write(request));
      s.on("data", (chunk: string) => {
        if (stat.openedAt === 0 && !chunk.startsWith("HTTP/1.1 200 ")) {
          errors.add(chunk.slice(0, 12));
          failed++;
          s.destroy();
          resolve();
          return;
        }
        if (stat.openedAt === 0) {
          stat.openedAt = Date.now();
          sockets.push(stat);
          resolve();
        }
        const text = tail + chunk;
        stat.pings += text.split(": ping\n").length - 1;
        tail = text.slice(-7);
        if (tail.includes(": ping\n")) tail = "";
      });
      s.on("error", (e: NodeJS.ErrnoException) => {
        errors.add(e.code ?? e.message);
        if (stat.openedAt === 0) {
          failed++;
          resolve();
        }
      });
    });
  for (let i = 0; i < streams; i += 500) {
    const batch: Promise<void>[] = [];
    for (let k = i; k < Math.min(streams, i + 500); k++) batch.push(openOne());
    await Promise.all(batch);
  }
  process.send?.("open");
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const end = Date.now();
  const due = sockets.map((s) => Math.floor((end - s.openedAt) / heartbeatMs));
  // Pings due before `end` may still be on the wire: give them GRACE_MS, and
  // count at most the due number per stream so later pings do not pad the ratio.
  await new Promise((resolve) => setTimeout(resolve, GRACE_MS));
  let received = 0;
  let expected = 0;
  sockets.forEach((s, i) => {
    received += Math.min(s.pings, due[i] ?? 0);
    expected += due[i] ?? 0;
  });
  const result: ClientReport = { opened: sockets.length, failed, errors: [...errors], received, expected };
  process.send?.(result);
}

const isMain = process.argv[1] === fileURLToPath(import.meta.url);
if (isMain && process.argv[2] === "--client") {
  const [port, streams, seconds, heartbeat] = process.argv.slice(3).map(Number);
  await runClient(port ?? 0, streams ?? 0, seconds ?? 0, heartbeat ?? 15000);
} else if (isMain) {
  const bare = process.argv.includes("--bare");
  // As the demo runs: its young generation kept small (examples/demo/young-generation.ts).
  if (process.argv.includes("--demo-heap")) keepYoungGenerationSmall();
  const [streams, seconds, heartbeatMs] = process.argv
    .slice(2)
    .filter((a) => !a.startsWith("--"))
    .map(Number);
  const result = await benchSSE({
    bare,
    ...(streams === undefined ? {} : { streams }),
    ...(seconds === undefined ? {} : { seconds }),
    ...(heartbeatMs === undefined ? {} : { heartbeatMs }),
  });
  process.stdout.write(JSON.stringify(result, null, 2) + "\n");
}
