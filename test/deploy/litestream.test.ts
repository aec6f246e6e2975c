/*
 * The real thing, where a `litestream` binary is installed (0.5.9 or later:
 * the control socket's POST /sync). Replicate a sign-in application's
 * database to a file replica with the durability barrier on, sign people in,
 * kill the primary (Litestream with SIGKILL, the application without a
 * clean close), restore the replica into another directory, and serve it:
 * every session whose redirect reached the client is still valid.
 * Elsewhere it reports itself skipped, with the reason.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { setDurable } from "../../lib/db/index.ts";
import { startSigninApp, type CookieJar } from "../_support/signin-app.ts";

const probe = spawnSync("litestream", ["version"], { encoding: "utf8" });
const skip = probe.error !== undefined ? "no litestream binary on PATH (https://litestream.io/install)" : undefined;

/** Polls for a file to appear: Litestream creates its socket on its own schedule. */
async function waitForFile(path: string, ms: number): Promise<void> {
  for (let waited = 0; !existsSync(path); waited += 50) {
    if (waited > ms) throw new Error(`${path} did not appear within ${ms} ms`);
    await sleep(50);
  }
}

describe("Litestream: replicate, kill the primary, restore elsewhere", { skip }, () => {
  test("every session whose redirect reached the client survives the loss of the primary", async (t) => {
    const dir = mkdtempSync(join(tmpdir(), "latch-litestream-"));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const primary = join(dir, "primary");
    const standby = join(dir, "standby");
    mkdirSync(primary);
    mkdirSync(standby);
    const dbPath = join(primary, "app.db");
    const socket = join(dir, "litestream.sock");
    const config = join(dir, "litestream.yml");
    writeFileSync(
      config,
      `socket:\n  enabled: true\n  path: ${socket}\n  permissions: 0600\ndbs:\n  - path: ${dbPath}\n    replica:\n      url: file://${join(dir, "replica")}\n`,
    );

    const app = await startSigninApp(t, { dbPath });
    const replicate = spawn("litestream", ["replicate", "-config", config], { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    replicate.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    t.after(() => void replicate.kill("SIGKILL"));
    await waitForFile(socket, 15_000);
    setDurable(app.db, { socket, path: dbPath, timeout: 30_000 });

    const jars: CookieJar[] = [];
    for (const who of ["ann", "bob", "cy", "dee", "eve"]) jars.push(await app.signIn(`${who}@example.com`));

    // The machine is lost: Litestream dies without a final sync, the application without closing.
    replicate.kill("SIGKILL");
    await new Promise((resolve) => replicate.once("exit", resolve));
    const restoredPath = join(standby, "app.db");
    const restored = spawnSync("litestream", ["restore", "-config", config, "-o", restoredPath, dbPath], { encoding: "utf8" });
    assert.equal(restored.status, 0, `${restored.stderr}\n${stderr}`);

    const standbyApp = await startSigninApp(t, { dbPath: restoredPath, mail: "log" });
    for (const [i, jar] of jars.entries()) {
      const me = await standbyApp.request("GET", "/me", { jar });
      assert.equal(me.status, 200, `session ${i + 1} lost in the restore`);
    }
  });
});
