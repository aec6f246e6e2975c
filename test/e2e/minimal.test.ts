/*
 * examples/minimal, the README's first sample: README.md shows exactly that
 * file (with the package's import paths), and run from any directory it
 * keeps its database in ./data, or in $STATE_DIRECTORY when systemd sets
 * it, never in the working directory (the repository root, when run from
 * there). The guide's application (docs/guide.md, step 1, which a
 * newcomer copies) does the same with `data/app.db`: Run puts a relative
 * DBPath in $STATE_DIRECTORY when it is set and leaves it relative to the
 * working directory otherwise, so each example asks for ./data itself.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it, type TestContext } from "node:test";
import { ROOT, codeBlocks, readRepoFile } from "../_support/docs.ts";
import { spawnChild } from "../_support/http.ts";

const SCRIPT = join(ROOT, "dist/examples/minimal/main.js");
const GUIDE = join(ROOT, "dist/examples/guide/main.js");

/** Returns a fresh directory removed when the test ends. */
function tempDir(t: TestContext, prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Runs the example (`script`, the minimal one by default) in `cwd` until it answers `/healthz`, then stops it with SIGTERM. */
async function runExample(t: TestContext, cwd: string, state: string | undefined, script = SCRIPT): Promise<void> {
  const { STATE_DIRECTORY: _inherited, ...env } = process.env;
  const child = spawnChild(t, script, ["--addr", "127.0.0.1:0"], {
    cwd,
    env: { ...env, INSTANCE_KEY: "minimal-example-test-key-0123456789", ...(state !== undefined && { STATE_DIRECTORY: state }) },
  });
  const listening = await child.waitForLog("listening");
  // A served request also proves the child got past its boot (and installed its SIGTERM handler).
  const health = await fetch(`http://${String(listening["addr"])}/healthz`);
  assert.equal(health.status, 200);
  child.process.kill("SIGTERM");
  assert.equal(await child.exited, 0);
}

describe("examples/minimal", () => {
  it("is the README's first code sample, letter for letter", () => {
    const sample = codeBlocks(readRepoFile("README.md")).find((b) => b.info === "ts");
    const source = readRepoFile("examples/minimal/main.ts")
      .replace(/^\/\*[\s\S]*?\*\/\n/, "")
      .replace(/"\.\.\/\.\.\/lib\/index\.ts"/g, '"latch"')
      .replace(/"\.\.\/\.\.\/lib\/([a-z0-9]+)\/index\.ts"/g, '"latch/$1"');
    assert.equal(`${sample?.code ?? ""}\n`, source);
  });

  it("keeps its database in ./data without $STATE_DIRECTORY, not in the working directory", async (t) => {
    const cwd = tempDir(t, "latch-minimal-");
    await runExample(t, cwd, undefined);
    assert.deepEqual(readdirSync(cwd), ["data"]);
    assert.ok(existsSync(join(cwd, "data", "minimal.db")));
  });

  it("keeps its database in $STATE_DIRECTORY when it is set", async (t) => {
    const cwd = tempDir(t, "latch-minimal-");
    const state = tempDir(t, "latch-minimal-state-");
    await runExample(t, cwd, state);
    assert.deepEqual(readdirSync(cwd), []);
    assert.ok(existsSync(join(state, "minimal.db")));
  });
});

describe("the guide's application (docs/guide.md, step 1)", () => {
  it("says where a relative DBPath goes, and what the app asks for without a state directory", () => {
    const guide = readRepoFile("docs/guide.md");
    assert.match(guide, /A relative `DBPath` goes in `\$STATE_DIRECTORY` when it is set[^]*?otherwise in the working directory/);
    assert.match(guide, /the database and its `-wal` and `-shm` files stay in\s+`\.\/data`/);
  });

  it("keeps its database in ./data without $STATE_DIRECTORY, not in the working directory", async (t) => {
    const cwd = tempDir(t, "latch-guide-");
    await runExample(t, cwd, undefined, GUIDE);
    assert.deepEqual(readdirSync(cwd), ["data"]);
    assert.ok(existsSync(join(cwd, "data", "app.db")));
  });

  it("keeps its database in $STATE_DIRECTORY when it is set", async (t) => {
    const cwd = tempDir(t, "latch-guide-");
    const state = tempDir(t, "latch-guide-state-");
    await runExample(t, cwd, state, GUIDE);
    assert.deepEqual(readdirSync(cwd), []);
    assert.ok(existsSync(join(state, "app.db")));
  });
});
