/*
 * The real thing, with the Litestream binary a version can prove things
 * with. Each part replicates a sign-in application's database to a file
 * replica, signs people in, kills the primary (Litestream with SIGKILL, the
 * application without a clean close), restores the replica into another
 * directory and serves it:
 *
 * - 0.3.x (the registry's binary, the dev dependency
 *   @flydotio/litestream-linux-x64): without a barrier, every session the
 *   replica had received before the kill (one sync interval after its
 *   sign-in; the test restores until it sees them) is valid on the standby.
 * - 0.5.9 or later (a `litestream` on PATH): with the durability barrier on
 *   (the control socket's POST /sync), every session whose redirect reached
 *   the client is valid on the standby, without waiting for anything.
 *
 * A part whose binary is missing, or of another version, reports itself
 * skipped with the reason.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, test, type TestContext } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { OpenDB, setDurable } from "../../lib/db/index.ts";
import { count, startSigninApp, type CookieJar } from "../_support/signin-app.ts";

/** A Litestream binary and the version it reports (`litestream version`: "v0.3.13"). */
interface Litestream {
  path: string;
  version: readonly [number, number, number];
}

/** Runs `<path> version`; undefined when it does not run or prints no version. */
function probe(path: string): Litestream | undefined {
  const ran = spawnSync(path, ["version"], { encoding: "utf8" });
  const m = ran.error === undefined ? /v?(\d+)\.(\d+)\.(\d+)/.exec(ran.stdout) : null;
  if (m === null) return undefined;
  return { path, version: [Number(m[1]), Number(m[2]), Number(m[3])] };
}

/** The dev dependency's binary: the package carries it at its root and declares no `bin`. */
function registryPath(): string {
  try {
    return join(dirname(createRequire(import.meta.url).resolve("@flydotio/litestream-linux-x64/package.json")), "litestream");
  } catch {
    return "(not installed)";
  }
}

const versionText = (l: Litestream | undefined): string => (l === undefined ? "none" : `v${l.version.join(".")}`);
const atLeast = (l: Litestream, want: readonly number[]): boolean => {
  for (const [i, w] of want.entries()) if (l.version[i] !== w) return (l.version[i] ?? 0) > w;
  return true;
};

const registry = probe(registryPath());
const onPath = probe("litestream");

const skip03 =
  registry === undefined
    ? "the dev dependency @flydotio/litestream-linux-x64 is not installed or does not run here (npm ci, linux x64)"
    : registry.version[0] !== 0 || registry.version[1] !== 3
      ? `the registry's Litestream is ${versionText(registry)}, this part is written for 0.3.x`
      : undefined;
// docs/durability.md "Guarantees": the barrier is Litestream's control socket, POST /sync, 0.5.9 or later.
const barrier = [onPath, registry].find((l) => l !== undefined && atLeast(l, [0, 5, 9]));
const skipBarrier =
  barrier === undefined
    ? `the durability barrier needs Litestream 0.5.9 or later (the control socket's POST /sync); on PATH: ${versionText(onPath)}, registry: ${versionText(registry)} (https://litestream.io/install)`
    : undefined;

/** Polls for a file to appear: Litestream creates its socket on its own schedule. */
async function waitForFile(path: string, ms: number): Promise<void> {
  for (let waited = 0; !existsSync(path); waited += 50) {
    if (waited > ms) throw new Error(`${path} did not appear within ${ms} ms`);
    await sleep(50);
  }
}

/** A temporary directory with primary/ and standby/ in it, removed after the test. */
function workspace(t: TestContext): { dir: string; dbPath: string; restoredPath: string; config: string } {
  const dir = mkdtempSync(join(tmpdir(), "latch-litestream-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, "primary"));
  mkdirSync(join(dir, "standby"));
  return {
    dir,
    dbPath: join(dir, "primary", "app.db"),
    restoredPath: join(dir, "standby", "app.db"),
    config: join(dir, "litestream.yml"),
  };
}

/** `litestream replicate`, killed with SIGKILL when the test ends if it still runs; `stderr()` is its log so far. */
function replicate(t: TestContext, binary: string, config: string): { child: ChildProcess; stderr: () => string } {
  const child = spawn(binary, ["replicate", "-config", config], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  t.after(() => void child.kill("SIGKILL"));
  return { child, stderr: () => stderr };
}

/** The machine is lost: Litestream dies without a final sync (the application is never closed). */
async function killHard(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGKILL");
  await exited;
}

/** `litestream restore` of the replica of `dbPath` into `out`; the exit status and what it wrote to stderr. */
function restore(binary: string, config: string, dbPath: string, out: string): { status: number | null; stderr: string } {
  return spawnSync(binary, ["restore", "-config", config, "-o", out, dbPath], { encoding: "utf8" });
}

/** Serves the restored database and checks every session is still signed in. */
async function assertSessionsSurvive(t: TestContext, restoredPath: string, jars: CookieJar[]): Promise<void> {
  const standbyApp = await startSigninApp(t, { dbPath: restoredPath, mail: "log" });
  for (const [i, jar] of jars.entries()) {
    const me = await standbyApp.request("GET", "/me", { jar });
    assert.equal(me.status, 200, `session ${i + 1} lost in the restore`);
  }
}

const PEOPLE = ["ann", "bob", "cy", "dee", "eve"];

describe("Litestream 0.3 (the registry's binary): replicate, kill the primary, restore elsewhere", { skip: skip03 }, () => {
  test("every session the replica received before the primary was lost is valid on the standby", async (t) => {
    const binary = registry?.path ?? "";
    const { dir, dbPath, restoredPath, config } = workspace(t);
    // Litestream 0.3's configuration: a list of replicas per database, no control socket.
    writeFileSync(
      config,
      `dbs:\n  - path: ${dbPath}\n    replicas:\n      - url: file://${join(dir, "replica")}\n        sync-interval: 1s\n`,
    );

    const app = await startSigninApp(t, { dbPath });
    const litestream = replicate(t, binary, config);
    const jars: CookieJar[] = [];
    for (const who of PEOPLE) jars.push(await app.signIn(`${who}@example.com`));

    // Without a barrier nothing says when a commit is replicated: restore until the replica holds every
    // session (a sync interval after the last sign-in), bounded so a replica that never catches up fails.
    const probePath = join(dir, "probe.db");
    let sessions = 0;
    for (let tries = 0; sessions < PEOPLE.length; tries++) {
      assert.ok(tries < 600, `the replica never held ${PEOPLE.length} sessions (${sessions}):\n${litestream.stderr()}`);
      await sleep(100);
      rmSync(probePath, { force: true });
      if (restore(binary, config, dbPath, probePath).status !== 0) continue;
      const probed = OpenDB(probePath);
      sessions = count(probed, "sessions");
      probed.close();
    }

    await killHard(litestream.child);
    const restored = restore(binary, config, dbPath, restoredPath);
    assert.equal(restored.status, 0, `${restored.stderr}\n${litestream.stderr()}`);
    await assertSessionsSurvive(t, restoredPath, jars);
  });
});

describe("Litestream 0.5.9+: the durability barrier, kill the primary, restore elsewhere", { skip: skipBarrier }, () => {
  test("every session whose redirect reached the client survives the loss of the primary", async (t) => {
    const binary = barrier?.path ?? "";
    const { dir, dbPath, restoredPath, config } = workspace(t);
    const socket = join(dir, "litestream.sock");
    writeFileSync(
      config,
      `socket:\n  enabled: true\n  path: ${socket}\n  permissions: 0600\ndbs:\n  - path: ${dbPath}\n    replica:\n      url: file://${join(dir, "replica")}\n`,
    );

    const app = await startSigninApp(t, { dbPath });
    const litestream = replicate(t, binary, config);
    await waitForFile(socket, 15_000);
    setDurable(app.db, { socket, path: dbPath, timeout: 30_000 });

    const jars: CookieJar[] = [];
    for (const who of PEOPLE) jars.push(await app.signIn(`${who}@example.com`));

    await killHard(litestream.child);
    const restored = restore(binary, config, dbPath, restoredPath);
    assert.equal(restored.status, 0, `${restored.stderr}\n${litestream.stderr()}`);
    await assertSessionsSurvive(t, restoredPath, jars);
  });
});
