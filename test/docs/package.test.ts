/*
 * The package ships what its documentation points at: docs/, a README for
 * every module, and LICENSE, next to the compiled library and the catalogs.
 * Read from `npm pack --dry-run`, so the `files` list is checked as npm
 * applies it.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ROOT, listFiles } from "../_support/docs.ts";

/** Returns the paths `npm pack` would put in the tarball. */
function packedFiles(): Set<string> {
  const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
    cwd: ROOT,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
  });
  const [pack] = JSON.parse(out) as { files: { path: string }[] }[];
  return new Set((pack?.files ?? []).map((f) => f.path));
}

test("npm pack ships LICENSE, docs/ and every module README", () => {
  const packed = packedFiles();
  const modules = readdirSync(join(ROOT, "lib"), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);
  const want = [
    "LICENSE",
    "README.md",
    ...listFiles("docs", [".md"]),
    ...modules.map((name) => `lib/${name}/README.md`),
    "lib/signin/oidc/README.md",
  ];
  // A module without a README is a failure here too: the README must exist to be shipped.
  const missing = want.filter((path) => !existsSync(join(ROOT, path)) || !packed.has(path));
  assert.deepEqual(missing, []);
  assert.ok(packed.has("dist/lib/index.js") && packed.has("catalogs/en.json"), "the library and the catalogs are still shipped");
  assert.deepEqual(
    [...packed].filter((path) => path.startsWith("test/") || path.startsWith("dist/test/") || path.startsWith("examples/")),
    [],
  );
});
