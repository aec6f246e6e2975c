/*
 * A reproducible package (docs/supply-chain.md#vendoring): two packs of
 * one commit are byte-identical tarballs, and two bundles identical
 * bundles. Each pack copies the files package.json ships (this checkout's
 * build among them) into its own scratch package, written at a different
 * time, and packs it with `npm pack --ignore-scripts` (the `prepare` build
 * would rebuild this checkout's dist/ under the other suites).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { bundle, DEMO_ENTRY } from "../../scripts/bundle.ts";
import { ROOT } from "./supply-doc.ts";

/** The files `npm pack` takes from this checkout. */
function packedSources(): string[] {
  const [listing] = JSON.parse(
    execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: ROOT, encoding: "utf8" }),
  ) as {
    files: { path: string }[];
  }[];
  return (listing?.files ?? []).map((f) => f.path);
}

/** Copies `sources` into a scratch package under `scratch`, dated `mtime`, and packs it; returns the tarball's bytes and integrity. */
function copyAndPack(scratch: string, name: string, sources: readonly string[], mtime: Date): { bytes: Buffer; integrity: string } {
  const dir = join(scratch, name);
  for (const path of sources) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    cpSync(join(ROOT, path), join(dir, path));
    utimesSync(join(dir, path), mtime, mtime);
  }
  const [packed] = JSON.parse(
    execFileSync("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", scratch, dir], { cwd: dir, encoding: "utf8" }),
  ) as { filename: string; integrity: string }[];
  const tarball = join(scratch, name + ".tgz");
  cpSync(join(scratch, packed?.filename ?? ""), tarball);
  rmSync(join(scratch, packed?.filename ?? ""));
  return { bytes: readFileSync(tarball), integrity: packed?.integrity ?? "" };
}

describe("a reproducible package", () => {
  it("packs one commit twice to the same bytes (the same sha512), whatever the files' dates", () => {
    const scratch = mkdtempSync(join(tmpdir(), "latch-pack-"));
    try {
      const sources = packedSources();
      assert.ok(sources.includes("sbom.cdx.json") && sources.includes("lib/index.ts"));
      assert.ok(sources.includes("dist/lib/index.js"));
      const first = copyAndPack(scratch, "a", sources, new Date("2020-01-01T00:00:00Z"));
      const second = copyAndPack(scratch, "b", sources, new Date());
      assert.match(first.integrity, /^sha512-/);
      assert.equal(second.integrity, first.integrity);
      assert.ok(second.bytes.equals(first.bytes));
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  it("bundles the demo twice to the same bytes", async () => {
    // Two directories at the same depth in dist/: the bundle names its modules relative to itself.
    const outs = [join(ROOT, "dist/.repro-a"), join(ROOT, "dist/.repro-b")];
    try {
      for (const out of outs) await bundle(DEMO_ENTRY, join(out, "demo.js"));
      const [a = "", b = ""] = outs;
      assert.ok(readFileSync(join(b, "demo.js")).equals(readFileSync(join(a, "demo.js"))));
      assert.ok(readFileSync(join(b, "demo.js.map")).equals(readFileSync(join(a, "demo.js.map"))));
    } finally {
      for (const out of outs) rmSync(out, { recursive: true, force: true });
    }
  });
});
