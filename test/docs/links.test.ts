/*
 * Every relative link in the Markdown the package ships (README.md, docs/,
 * the module READMEs) reaches a file of the repository, and its #anchor a
 * heading of that file, as GitHub slugs headings, or a line of a source
 * file (#L12, #L12-L20). Web links are not fetched.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { test } from "node:test";
import { ROOT, codeBlocks, listFiles, readRepoFile } from "../_support/docs.ts";

/** Returns GitHub's anchor for a heading: lowercase, punctuation dropped (but - and _), spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");
}

/** Returns the anchors of a Markdown document's headings (fenced code skipped). */
function anchors(markdown: string): Set<string> {
  let text = markdown;
  for (const block of codeBlocks(markdown)) text = text.replace(block.code, "");
  return new Set([...text.matchAll(/^#{1,6}[ \t]+(.+)$/gm)].map((m) => slug(m[1] ?? "")));
}

test("slug()", () => {
  assert.equal(slug("2.1 Runtime options (`Options`)"), "21-runtime-options-options");
  assert.equal(slug("Router (`latch`, `latch/router`)"), "router-latch-latchrouter");
  assert.equal(slug("5. Security conventions"), "5-security-conventions");
});

test("relative Markdown links reach a file and a heading", () => {
  const documents = ["README.md", ...listFiles("docs", [".md"]), ...listFiles("lib", ["README.md"])];
  const broken: string[] = [];
  let checked = 0;
  for (const document of documents) {
    let text = readRepoFile(document);
    for (const block of codeBlocks(text)) text = text.replace(block.code, "");
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1] ?? "";
      if (/^[a-z]+:/i.test(target)) continue;
      checked++;
      const [path = "", anchor] = target.split("#");
      const file = path === "" ? document : normalize(join(dirname(document), path));
      if (!existsSync(join(ROOT, file))) {
        broken.push(`${document}: ${target} (no file ${file})`);
        continue;
      }
      if (anchor !== undefined && file.endsWith(".md") && !anchors(readRepoFile(file)).has(anchor)) {
        broken.push(`${document}: ${target} (no heading #${anchor} in ${file})`);
      }
      // A line anchor on a source file (GitHub's #L12 or #L12-L20) stays within the file.
      const lines = /^L(\d+)(?:-L(\d+))?$/.exec(anchor ?? "");
      if (lines !== null && !file.endsWith(".md")) {
        const count = readRepoFile(file).replace(/\n$/, "").split("\n").length;
        if (Number(lines[2] ?? lines[1]) > count) broken.push(`${document}: ${target} (${file} has ${count} lines)`);
      }
    }
  }
  assert.deepEqual(broken, []);
  assert.ok(checked >= 40, `only ${checked} links found`);
});
