/*
 * Every name a module's index.ts exports is named in that module's README,
 * so a reader who meets a name finds its module's page by searching for it,
 * and a rename that forgets the README fails here.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { ROOT, listFiles, readRepoFile } from "../_support/docs.ts";

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
