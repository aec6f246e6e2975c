/*
 * The handbook's layer table (docs/handbook.md, "Layers") is read from the
 * code: each row's Imports cell (the backticked module names it starts
 * with, "Node only" or "re-exports only") must be exactly the modules that
 * row's files import (lib/internal left out on both sides, as the handbook
 * says), each
 * of them in a row above; every module of lib/ has a row. A new import, a
 * dropped one or a module left out of the table fails here.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { moduleImports } from "../_support/imports.ts";
import { ROOT, leadingNames, listFiles, readRepoFile } from "../_support/docs.ts";

/** One row of the layer table: its position, the modules it names ("" for lib/index.ts) and what it says they import. */
interface LayerRow {
  index: number;
  modules: string[];
  imports: string[] | "Node only" | "re-exports only";
  line: string;
}

/** Reads the rows of the table headed `| Layer | Module | Imports |`. */
function layerRows(markdown: string): LayerRow[] {
  const lines = markdown.split("\n");
  const head = lines.findIndex((line) => /^\|\s*Layer\s*\|\s*Module\s*\|\s*Imports\s*\|$/.test(line));
  assert.ok(head >= 0, "no layer table in docs/handbook.md");
  const rows: LayerRow[] = [];
  for (let i = head + 2; i < lines.length && lines[i]?.startsWith("|") === true; i++) {
    const line = lines[i] ?? "";
    const [, , module = "", imports = ""] = line.split("|");
    const modules = leadingNames(module).map((name) => (name === "lib/index.ts" ? "" : name));
    const names = leadingNames(imports);
    const said = imports.trim();
    rows.push({
      index: rows.length,
      modules,
      imports: names.length > 0 ? names : said === "Node only" || said === "re-exports only" ? said : [`unreadable: ${said}`],
      line,
    });
  }
  return rows;
}

describe("docs/handbook.md's layer table", () => {
  const rows = layerRows(readRepoFile("docs/handbook.md"));
  const actual = moduleImports(join(ROOT, "lib"));
  const rowOf = new Map(rows.flatMap((row) => row.modules.map((m) => [m, row] as const)));

  test("leadingNames()", () => {
    assert.deepEqual(leadingNames(" `http`, `agent`: it reaches `x` "), ["http", "agent"]);
    assert.deepEqual(leadingNames("`signin` (with `signin/oidc`)"), ["signin"]);
    assert.deepEqual(leadingNames("Node only"), []);
  });

  test("has a row for every module of lib/ and for the package root", () => {
    const modules = listFiles("lib", ["index.ts"])
      .map((door) => door.split("/"))
      .filter((parts) => parts.length <= 3)
      .map((parts) => (parts.length === 2 ? "" : (parts[1] ?? "")));
    assert.ok(modules.length >= 20, `only ${modules.length} modules found`);
    assert.deepEqual(modules.filter((m) => !rowOf.has(m)).sort(), []);
    assert.deepEqual(
      [...rowOf.keys()].filter((m) => m !== "" && !existsSync(join(ROOT, "lib", m, "index.ts"))),
      [],
      "a row names no module of lib/",
    );
  });

  test("each module's Imports cell is the set of modules its files import (lib/internal left out)", () => {
    const wrong: string[] = [];
    for (const row of rows) {
      for (const module of row.modules) {
        if (module === "") continue;
        // The column leaves lib/internal out (every module may import it); http's row names it as its only import.
        const leftOut = (m: string): boolean => module === "internal" || m !== "internal";
        const imports = (actual.get(module) ?? []).filter(leftOut);
        const said =
          row.imports === "Node only"
            ? []
            : row.imports === "re-exports only"
              ? ["(re-exports only)"]
              : [...row.imports].filter(leftOut).sort();
        if (said.join(" ") !== imports.join(" "))
          wrong.push(`${module}: the handbook says ${said.join(", ") || "Node only"}, the code imports ${imports.join(", ") || "nothing"}`);
      }
    }
    assert.deepEqual(wrong, []);
  });

  test("every module imports only modules in rows above its own", () => {
    const upward: string[] = [];
    for (const [module, imports] of actual) {
      const row = rowOf.get(module);
      if (row === undefined || module === "") continue;
      for (const to of imports) {
        const target = rowOf.get(to);
        if (target === undefined || target.index >= row.index)
          upward.push(`${module} imports ${to}, in a row ${target === undefined ? "nowhere" : "not above"}`);
      }
    }
    assert.deepEqual(upward, []);
  });

  test("lib/index.ts re-exports only, as its row says", () => {
    assert.equal(rowOf.get("")?.imports, "re-exports only");
    const statements = readRepoFile("lib/index.ts")
      .replace(/^\/\/\/.*$/gm, "")
      .split(";")
      .map((s) => s.trim())
      .filter((s) => s !== "");
    assert.deepEqual(
      statements.filter((s) => !/^export\s[\s\S]*\sfrom\s*"[^"]+"$/.test(s)),
      [],
    );
  });
});
