/*
 * The layering rule (docs/handbook.md): each folder under lib/ is a module
 * whose index.ts is its only door, and imports between modules run one way.
 * This suite walks every import and re-export of lib/ (type-only ones too)
 * and fails on an import that bypasses an index.ts, on any cycle between
 * modules, and on any circle between files, within a module too: a circle
 * makes a file's meaning depend on load order and hides which file is the
 * base of the other.
 */
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve, sep } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { crossModuleEdges, importEdges, type Edge } from "../_support/imports.ts";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

/** Imports that reach into another module past its index.ts. */
function bypasses(edges: readonly Edge[]): string[] {
  return edges.filter((e) => e.target !== join(e.to, "index.ts")).map((e) => `${e.file} imports ${e.target}`);
}

/** Returns one cycle of the module graph as a path, or undefined. */
function findCycle(edges: readonly Edge[]): string[] | undefined {
  const next = new Map<string, Set<string>>();
  for (const e of edges) {
    if (e.from === "" || e.to === "") continue; // lib/index.ts is the package root, above everything.
    if (!next.has(e.from)) next.set(e.from, new Set());
    next.get(e.from)?.add(e.to);
  }
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (node: string): string[] | undefined => {
    if (state.get(node) === "done") return undefined;
    if (state.get(node) === "open") return [...stack.slice(stack.indexOf(node)), node];
    state.set(node, "open");
    stack.push(node);
    for (const to of next.get(node) ?? []) {
      const cycle = visit(to);
      if (cycle !== undefined) return cycle;
    }
    stack.pop();
    state.set(node, "done");
    return undefined;
  };
  for (const node of next.keys()) {
    const cycle = visit(node);
    if (cycle !== undefined) return cycle;
  }
  return undefined;
}

/**
 * Returns the circles between files: each group of files that reach one
 * another through imports (a strongly connected component of more than one
 * file, or a file importing itself), its files sorted, the groups sorted by
 * their first file.
 */
function fileCircles(edges: readonly Edge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const e of edges) next.set(e.file, [...(next.get(e.file) ?? []), e.target]);
  // Tarjan's algorithm: a file's low link is the earliest file on the stack it reaches.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const circles: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file) ?? 0);
    stack.push(file);
    for (const to of next.get(file) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file) ?? 0, low.get(to) ?? 0));
      } else if (stack.includes(to)) {
        low.set(file, Math.min(low.get(file) ?? 0, index.get(to) ?? 0));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const group = stack.splice(stack.indexOf(file));
    if (group.length > 1 || (next.get(file) ?? []).includes(file)) circles.push(group.sort());
  };
  for (const file of next.keys()) if (!index.has(file)) visit(file);
  return circles.sort((a, b) => (a[0] ?? "").localeCompare(b[0] ?? ""));
}

describe("lib/ layering", () => {
  const edges = crossModuleEdges(join(REPO, "lib"));

  test("finds the imports it checks", () => {
    assert.ok(
      edges.some((e) => e.from === "runtime" && e.to === "http"),
      "runtime → http expected",
    );
    assert.ok(
      edges.some((e) => e.from === "signin" && e.to === "session"),
      "signin → session expected",
    );
    assert.ok(
      edges.some((e) => e.from === "http" && e.to === "internal"),
      "http → internal expected",
    );
  });

  test("every import between modules goes through the other module's index.ts", () => {
    assert.deepEqual(bypasses(edges), []);
  });

  test("no cycle between modules, type-only imports included", () => {
    assert.equal(findCycle(edges)?.join(" → "), undefined);
  });

  test("no circle between files, within a module too, type-only imports included", () => {
    assert.deepEqual(
      fileCircles(importEdges(join(REPO, "lib"))).map((group) => `${group.join(", ")} import one another`),
      [],
    );
  });

  test("lib/internal imports no other module", () => {
    assert.deepEqual(
      edges.filter((e) => e.from === "internal").map((e) => `${e.file} → ${e.target}`),
      [],
    );
  });

  test("the primitives in lib/http import no other module but lib/internal", () => {
    assert.deepEqual(
      edges.filter((e) => e.from === "http" && e.to !== "internal").map((e) => `${e.file} → ${e.target}`),
      [],
    );
  });

  test("lib/internal is not a package subpath, and the root does not re-export it", () => {
    const exports = (JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { exports: Record<string, unknown> }).exports;
    assert.deepEqual(
      Object.keys(exports).filter((subpath) => subpath.split("/").includes("internal")),
      [],
    );
    assert.deepEqual(
      edges.filter((e) => e.from === "" && e.to === "internal").map((e) => e.file),
      [],
    );
  });

  test("nothing below the runtime imports it", () => {
    assert.deepEqual(
      edges.filter((e) => e.to === "runtime" && e.from !== "").map((e) => e.file),
      [],
    );
  });
});

describe("the layering checker", () => {
  function fixture(files: Record<string, string>): string {
    const lib = join(mkdtempSync(join(tmpdir(), "latch-layering-")), "lib");
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(lib, path)), { recursive: true });
      writeFileSync(join(lib, path), text);
    }
    return lib;
  }

  test("reports a cycle made of type-only imports", () => {
    const lib = fixture({
      "a/index.ts": 'import type { B } from "../b/index.ts";\nexport type A = B;\n',
      "b/index.ts": 'export type { A as B } from "../a/index.ts";\n',
    });
    assert.deepEqual(findCycle(crossModuleEdges(lib)), ["a", "b", "a"]);
  });

  test("reports an import past another module's index.ts", () => {
    const lib = fixture({
      "a/index.ts": 'export { x } from "./x.ts";\n',
      "a/x.ts": 'import {\n  y,\n} from "../b/y.ts";\nexport const x = y;\n',
      "b/y.ts": "export const y = 1;\n",
    });
    assert.deepEqual(bypasses(crossModuleEdges(lib)), [`a${sep}x.ts imports b${sep}y.ts`]);
  });

  test("reports a circle of files within a module, type-only imports included", () => {
    const lib = fixture({
      "a/index.ts": 'export { x } from "./x.ts";\n',
      "a/x.ts": 'import type { Z } from "./z.ts";\nexport const x: Z = 1;\n',
      "a/y.ts": 'import { x } from "./x.ts";\nexport type Y = typeof x;\n',
      "a/z.ts": 'export type {\n  Y as Z,\n} from "./y.ts";\n',
      "b/index.ts": 'import { x } from "../a/index.ts";\nexport const b = x;\n',
    });
    assert.deepEqual(fileCircles(importEdges(lib)), [[`a${sep}x.ts`, `a${sep}y.ts`, `a${sep}z.ts`]]);
  });

  test("reports each circle once and nothing for imports that only converge", () => {
    const lib = fixture({
      "a/index.ts": 'export { p } from "./p.ts";\nexport { q } from "./q.ts";\n',
      "a/p.ts": 'import { q } from "./q.ts";\nexport const p = q;\n',
      "a/q.ts": "export const q = 1;\n",
      "c/index.ts": 'export { r } from "./r.ts";\n',
      "c/r.ts": 'import { s } from "./s.ts";\nexport const r = 1;\nexport const t = s;\n',
      "c/s.ts": 'import { r } from "./r.ts";\nexport const s = r;\n',
    });
    assert.deepEqual(fileCircles(importEdges(lib)), [[`c${sep}r.ts`, `c${sep}s.ts`]]);
  });
});
