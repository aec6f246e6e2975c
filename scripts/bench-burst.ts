/*
 * `/healthz` latency while 50 passkey ceremonies verify at once: 50 clients
 * POST /verify back to back (each a full parse + verifyAuthentication of a
 * W3C ES256 assertion) for `seconds`, while one client sends GET /healthz
 * one after the other and records each latency. Measured with every check on
 * the event loop ("before": SignatureVerifier workers: 0) and with the
 * default pool ("after"). Neither run is pinned: the pool's point is to use
 * the cores the event loop does not.
 *
 * Usage: node dist/scripts/bench-burst.js [seconds]   (prints JSON)
 */
import { spawn } from "node:child_process";
import { Agent, request } from "node:http";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const CEREMONIES = 50;

/** One run. */
export interface BurstRun {
  verifier: "in-thread" | "pool";
  verificationsPerSec: number;
  healthzProbes: number;
  healthzP50Ms: number;
  healthzP99Ms: number;
  healthzMaxMs: number;
}

function call(agent: Agent, port: number, method: string, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = request({ host: "127.0.0.1", port, method, path, agent }, (res) => {
      res.resume();
      res.on("end", () =>
        res.statusCode === 200 ? resolve(performance.now() - t0) : reject(new Error(`${path} answered ${res.statusCode}`)),
      );
    });
    req.on("error", reject);
    req.end();
  });
}

function percentile(sorted: number[], p: number): number {
  return Math.round((sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0) * 10) / 10;
}

async function runOne(mode: "inthread" | "pool", seconds: number): Promise<BurstRun> {
  const child = spawn(process.execPath, [join(ROOT, "dist/scripts/bench-servers/passkey-burst.js"), mode], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      child.stdout.on("data", (chunk: Buffer) => {
        const m = /\{"port":(\d+)\}/.exec(chunk.toString());
        if (m?.[1] !== undefined) resolve(Number(m[1]));
      });
      child.once("exit", (code) => reject(new Error(`passkey-burst exited ${code}`)));
    });
    const agent = new Agent({ keepAlive: true, maxSockets: CEREMONIES + 1 });
    // Warm-up: start the workers and JIT both paths.
    await Promise.all(Array.from({ length: CEREMONIES }, () => call(agent, port, "POST", "/verify")));
    const end = performance.now() + seconds * 1000;
    let verified = 0;
    const ceremonies = Array.from({ length: CEREMONIES }, async () => {
      while (performance.now() < end) {
        await call(agent, port, "POST", "/verify");
        verified++;
      }
    });
    const probes: number[] = [];
    while (performance.now() < end) probes.push(await call(agent, port, "GET", "/healthz"));
    await Promise.all(ceremonies);
    agent.destroy();
    probes.sort((a, b) => a - b);
    return {
      verifier: mode === "pool" ? "pool" : "in-thread",
      verificationsPerSec: Math.round(verified / seconds),
      healthzProbes: probes.length,
      healthzP50Ms: percentile(probes, 50),
      healthzP99Ms: percentile(probes, 99),
      healthzMaxMs: percentile(probes, 100),
    };
  } finally {
    child.kill("SIGKILL");
  }
}

/** Runs "before" (in-thread) and "after" (pool). */
export async function benchBurst(seconds = 10): Promise<BurstRun[]> {
  return [await runOne("inthread", seconds), await runOne("pool", seconds)];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const s = Number(process.argv[2] ?? "10");
  process.stdout.write(JSON.stringify(await benchBurst(Number.isFinite(s) && s > 0 ? s : 10)) + "\n");
}
