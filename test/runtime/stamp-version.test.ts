/*
 * The build-time version stamp (SPEC §9: `BuildVersion` is "dev" unless overridden at build time;
 * docs/handbook.md "Releasing", step 4). `node dist/scripts/stamp-version.js <version>` runs on a copy of
 * the built output, in a scratch directory (the repository's dist keeps "dev"), and then both built forms
 * must carry the version: the compiled library answers it at `GET /api/version`, and the demo's bundle
 * (the one its unit runs) holds it instead of "dev".
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { test, type TestContext } from "node:test";
import type { HandlerFunc } from "../../lib/http/index.ts";
import { ROOT } from "../_support/docs.ts";
import { fetchHTTP } from "../_support/http.ts";
import { startServer } from "../_support/server.ts";

/** Copies what the stamp reads and writes (the compiled library, scripts and examples, the package manifest) into a scratch root. */
function builtCopy(t: TestContext): string {
  const root = mkdtempSync(join(tmpdir(), "latch-stamp-"));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  for (const dir of ["dist/lib", "dist/scripts", "dist/examples"]) cpSync(join(ROOT, dir), join(root, dir), { recursive: true });
  cpSync(join(ROOT, "package.json"), join(root, "package.json"));
  symlinkSync(join(ROOT, "node_modules"), join(root, "node_modules"), "dir");
  return root;
}

function stamp(root: string, version: string): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, [join(root, "dist/scripts/stamp-version.js"), version], { encoding: "utf8" });
}

test(
  "stamp-version writes the version into the compiled runtime (GET /api/version) and the demo's bundle",
  { timeout: 120_000 },
  async (t) => {
    const root = builtCopy(t);
    const version = "v9.8.7-stamp.1";
    const run = stamp(root, version);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout, `stamp-version: BuildVersion = ${version}\n`);

    // The stamped copy of the library, loaded as its own module graph, answers the version on the wire.
    const stamped = (await import(pathToFileURL(join(root, "dist/lib/index.js")).href)) as {
      Handler: (opts: { Mux: HandlerFunc }) => [HandlerFunc, () => void];
    };
    const [handler, cleanup] = stamped.Handler({ Mux: (_req, res) => void res.writeHead(404).end() });
    const { port } = await startServer(t, handler, { cleanup });
    const reply = await fetchHTTP(port, "/api/version");
    assert.equal(reply.status, 200);
    assert.deepEqual(JSON.parse(reply.body), { version });

    // The bundle the demo's unit runs was made again from the stamped runtime.
    const bundle = readFileSync(join(root, "dist/bundle/demo.js"), "utf8");
    assert.match(bundle, new RegExp(`BuildVersion = "${version.replaceAll(".", "\\.")}"`));
    assert.doesNotMatch(bundle, /BuildVersion = "dev"/);
    // The repository's own build still says "dev" (SPEC §9's default).
    assert.match(readFileSync(join(ROOT, "dist/lib/runtime/version.js"), "utf8"), /BuildVersion = "dev"/);
  },
);

test("stamp-version refuses a version that is not 1-64 characters of [A-Za-z0-9._+-], changing nothing", (t) => {
  const root = builtCopy(t);
  const before = readFileSync(join(root, "dist/lib/runtime/version.js"), "utf8");
  for (const bad of ["", 'v1"; evil()', "x".repeat(65), "v1 2"]) {
    const run = stamp(root, bad);
    assert.equal(run.status, 2, bad);
    assert.equal(run.stderr, "stamp-version: give a version of 1-64 characters from [A-Za-z0-9._+-]\n");
  }
  assert.equal(readFileSync(join(root, "dist/lib/runtime/version.js"), "utf8"), before);
});
