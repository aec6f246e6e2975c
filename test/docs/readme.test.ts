/*
 * README.md is the front door, not a manual: at most 150 lines, and its
 * maps are complete, so a module or a document nobody links cannot hide.
 * Every module README is linked from the module map, every document under
 * docs/ from the documentation table; what the README left behind lives in
 * those (docs/handbook.md, "Checks that keep the docs honest").
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { codeBlocks, listFiles, readRepoFile } from "../_support/docs.ts";

const README = readRepoFile("README.md");
const MAX_LINES = 150;

/** Returns the relative link targets of a Markdown document outside its code blocks, anchors dropped. */
function linkTargets(markdown: string): Set<string> {
  let text = markdown;
  for (const block of codeBlocks(markdown)) text = text.replace(block.code, "");
  return new Set([...text.matchAll(/\]\(([^)\s#]+)(?:#[^)\s]*)?\)/g)].map((m) => m[1] ?? ""));
}

test(`README.md has at most ${MAX_LINES} lines`, () => {
  const lines = README.split("\n").length - (README.endsWith("\n") ? 1 : 0);
  assert.ok(lines <= MAX_LINES, `README.md has ${lines} lines`);
});

test("README.md links every module README and every document under docs/", () => {
  const links = linkTargets(README);
  const missing = [...listFiles("lib", ["README.md"]), ...listFiles("docs", [".md"])].filter((file) => !links.has(file));
  assert.deepEqual(missing, []);
});

test("linkTargets() sees links outside code only", () => {
  const markdown = "[a](lib/a/README.md#x) and [b](docs/b.md)\n```md\n[c](docs/c.md)\n```\n";
  assert.deepEqual([...linkTargets(markdown)], ["lib/a/README.md", "docs/b.md"]);
});
