/*
 * Every name a module's index.ts exports is named in that module's README,
 * so a reader who meets a name finds its module's page by searching for it,
 * and a rename that forgets the README fails here. Every file a README's
 * file table gives is in its folder, so a file merged or renamed away fails
 * here too (names.test.ts checks that the row's names are that file's).
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { ROOT, listFiles, prose, readRepoFile } from "../_support/docs.ts";

/** Returns the names an index.ts exports (`export { a, b as c }` and `export type { … }` give a, c). */
function exportedNames(source: string): string[] {
  const out: string[] = [];
  for (const m of source.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}/g)) {
    for (const item of (m[1] ?? "").split(",")) {
      const name =
        item
          .trim()
          .split(/\s+as\s+/)
          .pop()
          ?.trim() ?? "";
      if (name !== "") out.push(name.replace(/^type\s+/, ""));
    }
  }
  return out;
}

test("exportedNames()", () => {
  assert.deepEqual(exportedNames('export { A, b as C } from "./a.ts";\nexport type { T,\n  U } from "./t.ts";'), ["A", "C", "T", "U"]);
});

test("each module README names every export of its index.ts", () => {
  const doors = listFiles("lib", ["index.ts"]).filter((path) => path !== "lib/index.ts");
  assert.ok(doors.length >= 14, `only ${doors.length} modules found`);
  const unnamed: string[] = [];
  for (const door of doors) {
    const readme = join(dirname(door), "README.md");
    if (!existsSync(join(ROOT, readme))) {
      unnamed.push(`${readme}: missing`);
      continue;
    }
    const text = readRepoFile(readme);
    for (const name of exportedNames(readRepoFile(door))) {
      if (!new RegExp(String.raw`(?<![\w$])${name.replace(/\$/g, "\\$")}(?![\w$])`).test(text)) unnamed.push(`${readme}: ${name}`);
    }
  }
  assert.deepEqual(unnamed, []);
});

/** Returns the files a README's file tables give (a `File` or `Files` column), with the line of each. */
function tableFiles(markdown: string): { file: string; line: number }[] {
  const out: { file: string; line: number }[] = [];
  let column = -1;
  prose(markdown)
    .split("\n")
    .forEach((text, i) => {
      if (!/^\s*\|/.test(text)) {
        column = -1;
        return;
      }
      const cells = text
        .split(/(?<!\\)\|/)
        .slice(1, -1)
        .map((cell) => cell.trim());
      if (column < 0) {
        column = cells.findIndex((cell) => /^Files?$/.test(cell));
        // A table without a File column: none of its rows is read.
        if (column < 0) column = Number.POSITIVE_INFINITY;
        return;
      }
      for (const m of (cells[column] ?? "").matchAll(/`([\w./-]+\.(?:ts|js|css))`/g)) out.push({ file: m[1] ?? "", line: i + 1 });
    });
  return out;
}

test("tableFiles()", () => {
  const text = "| Name | File |\n|---|---|\n| `a` | `x.ts`, `oidc/y.ts` |\n\n| Name | What |\n|---|---|\n| `b` | `z.ts` |";
  assert.deepEqual(tableFiles(text), [
    { file: "x.ts", line: 3 },
    { file: "oidc/y.ts", line: 3 },
  ]);
});

test("every file a module README's file table gives is in the module's folder", () => {
  const missing: string[] = [];
  let checked = 0;
  for (const readme of listFiles("lib", ["README.md"])) {
    for (const { file, line } of tableFiles(readRepoFile(readme))) {
      checked++;
      if (!existsSync(join(ROOT, dirname(readme), file))) missing.push(`${readme}:${line}: ${file}`);
    }
  }
  assert.deepEqual(missing, []);
  assert.ok(checked >= 60, `only ${checked} files found in file tables`);
});
