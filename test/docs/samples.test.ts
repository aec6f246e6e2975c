/*
 * Every ```ts block in README.md, docs/*.md and the module READMEs
 * type-checks against the built package, as an application would import it:
 * each block becomes one module of a throwaway project whose
 * node_modules/latch is this repository, checked by the repository's own
 * tsc (NodeNext, strict, types ["node"]). A block fenced ```ts fragment is
 * deliberately incomplete and skipped; keep those rare. A block fenced
 * ```ts excerpt=<file> is a verbatim part of a compiled repository file
 * (docs/guide.md quotes examples/guide/); guide.test.ts checks it is.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { ROOT, codeBlocks, listFiles, readRepoFile } from "../_support/docs.ts";

interface Sample {
  file: string;
  source: string;
  code: string;
}

/** Returns the ```ts blocks of the documents, skipping those marked `fragment`. */
function samples(): { checked: Sample[]; fragments: number } {
  const documents = ["README.md", ...listFiles("docs", [".md"]), ...listFiles("lib", ["README.md"])];
  const checked: Sample[] = [];
  let fragments = 0;
  for (const document of documents) {
    for (const block of codeBlocks(readRepoFile(document))) {
      const words = block.info.split(/\s+/);
      if (words[0] !== "ts" && words[0] !== "typescript") continue;
      if (words.some((word) => word.startsWith("excerpt="))) continue;
      if (words.includes("fragment")) {
        fragments++;
        continue;
      }
      const file = `${document.replace(/[^A-Za-z0-9]+/g, "-")}-line-${block.line}.ts`;
      // `export {}` keeps a block without imports a module, so blocks never share a scope.
      checked.push({ file, source: `${document}:${block.line}`, code: `${block.code}\nexport {};\n` });
    }
  }
  return { checked, fragments };
}

test("code samples in the documentation type-check against the package", (t) => {
  assert.ok(existsSync(join(ROOT, "dist/lib/index.d.ts")), "build first: npm test runs tsc before the suites");
  const { checked, fragments } = samples();
  assert.ok(checked.length >= 4, `only ${checked.length} samples found`);
  assert.ok(fragments <= checked.length, "fragments should stay rare");

  const dir = mkdtempSync(join(tmpdir(), "latch-samples-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, "node_modules"));
  symlinkSync(ROOT, join(dir, "node_modules", "latch"), "dir");
  symlinkSync(join(ROOT, "node_modules", "@types"), join(dir, "node_modules", "@types"), "dir");
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module", private: true }));
  const compilerOptions = {
    target: "es2023",
    lib: ["es2023"],
    module: "nodenext",
    moduleResolution: "nodenext",
    strict: true,
    types: ["node"],
  };
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, include: ["*.ts"] }));
  for (const sample of checked) writeFileSync(join(dir, sample.file), sample.code);

  let output = "";
  try {
    execFileSync(process.execPath, [join(ROOT, "node_modules/.bin/tsc"), "--noEmit", "-p", dir, "--pretty", "false"], {
      cwd: dir,
      encoding: "utf8",
    });
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string };
    output = `${err.stdout ?? ""}${err.stderr ?? ""}`;
  }
  // Name each failure by the document and line its block came from.
  for (const sample of checked) output = output.replaceAll(sample.file, `${sample.source} (block) `);
  assert.equal(output.trim(), "");
});
