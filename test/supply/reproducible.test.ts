/*
 * A reproducible package (docs/supply-chain.md#vendoring): two independent
 * builds of one commit pack to byte-identical tarballs and bundle the demo
 * to identical bundles. Each build copies the repository's tracked files
 * (`git ls-files`, as a clone of the commit has them) into its own scratch
 * directory, at a different path and depth and with different file dates,
 * runs `npm run build` there (tsc, the client assets, the bundle) with this
 * checkout's node_modules, and packs it with `npm pack --ignore-scripts`
 * (its build already ran).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { ROOT } from "./supply-doc.ts";

/** The files a clone of this commit holds (tracked files, as this checkout has them). */
function trackedFiles(): string[] {
  return execFileSync("git", ["ls-files", "-z"], { cwd: ROOT, encoding: "utf8" })
    .split("\0")
    .filter((path) => path !== "");
}

interface Build {
  /** The packed tarball's bytes and its sha512 integrity, as npm prints it. */
  tarball: Buffer;
  integrity: string;
  /** dist/bundle/demo.js and its source map. */
  bundle: Buffer;
  bundleMap: Buffer;
}

/** Copies `files` into `dir`, dated `mtime`, builds there and packs the result. */
function buildAndPack(dir: string, files: readonly string[], mtime: Date): Build {
  for (const path of files) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    cpSync(join(ROOT, path), join(dir, path));
    utimesSync(join(dir, path), mtime, mtime);
  }
  symlinkSync(realpathSync(join(ROOT, "node_modules")), join(dir, "node_modules"));
  execFileSync("npm", ["run", "build"], { cwd: dir, stdio: "ignore" });
  const [packed] = JSON.parse(
    execFileSync("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", dir], { cwd: dir, encoding: "utf8" }),
  ) as { filename: string; integrity: string }[];
  return {
    tarball: readFileSync(join(dir, packed?.filename ?? "")),
    integrity: packed?.integrity ?? "",
    bundle: readFileSync(join(dir, "dist/bundle/demo.js")),
    bundleMap: readFileSync(join(dir, "dist/bundle/demo.js.map")),
  };
}

describe("a reproducible package", () => {
  it("builds one commit twice, in different directories at different times, to the same tarball (sha512) and bundle", () => {
    const scratch = mkdtempSync(join(tmpdir(), "latch-repro-"));
    try {
      const files = trackedFiles();
      assert.ok(files.includes("sbom.cdx.json") && files.includes("lib/index.ts") && files.includes("scripts/bundle.ts"));
      const first = buildAndPack(join(scratch, "a"), files, new Date("2020-01-01T00:00:00Z"));
      const second = buildAndPack(join(scratch, "second", "build-b"), files, new Date());
      assert.match(first.integrity, /^sha512-/);
      assert.equal(second.integrity, first.integrity);
      assert.ok(second.tarball.equals(first.tarball));
      assert.ok(first.bundle.length > 0);
      assert.ok(second.bundle.equals(first.bundle));
      assert.ok(second.bundleMap.equals(first.bundleMap));
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
