/*
 * docs/errors.md lists exactly the codes the modules define. The codes are
 * read from the compiled modules: every `*_ERROR_CODES` list exported by an
 * `errors.js` under dist/lib (whether or not the module's door makes it public). The sources are scanned too, so a code thrown
 * somewhere but missing from its module's list fails here as well. Retired
 * codes have their own table at the end of the document; one that comes
 * back (exported, or quoted in lib/) fails.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { ROOT, listFiles, readRepoFile } from "../_support/docs.ts";

const TABLE = "docs/errors.md";
// Codes that are Node's, not latch's (the jobs escape guard raises Node's own unhandled-rejection code).
const NODE_CODES = new Set(["ERR_UNHANDLED_REJECTION"]);

/** Returns every code of every `*_ERROR_CODES` list a compiled module's errors file exports, with the list's name. */
async function exportedCodes(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const file of listFiles("dist/lib", ["errors.js"])) {
    const mod: Record<string, unknown> = await import(pathToFileURL(join(ROOT, file)).href);
    for (const [name, value] of Object.entries(mod)) {
      if (!name.endsWith("_ERROR_CODES") || typeof value !== "object" || value === null) continue;
      for (const code of Object.keys(value)) out.set(code, name);
    }
  }
  return out;
}

// Retired codes sit in their own table after this heading: listed, never exported or thrown again.
const RETIRED_HEADING = "\n## Retired codes\n";

/** Returns the codes in the first cell of the table rows of `markdown`, in order (duplicates kept). */
function codesIn(markdown: string): string[] {
  const out: string[] = [];
  for (const m of markdown.matchAll(/^\|\s*`(ERR_[A-Z0-9_]+)`\s*\|/gm)) out.push(m[1] ?? "");
  return out;
}

/** Splits docs/errors.md at the retired-codes heading: the live tables before it, the retired table after. */
function tableParts(): { live: string; retired: string } {
  const text = readRepoFile(TABLE);
  const at = text.indexOf(RETIRED_HEADING);
  return at === -1 ? { live: text, retired: "" } : { live: text.slice(0, at), retired: text.slice(at) };
}

/** Returns the codes of the live tables of docs/errors.md, in order (duplicates kept). */
function tableCodes(): string[] {
  return codesIn(tableParts().live);
}

test("docs/errors.md lists exactly the codes the modules export", async () => {
  const exported = await exportedCodes();
  const listed = tableCodes();
  assert.ok(exported.size >= 90, `only ${exported.size} codes exported: the scan of dist/lib broke`);
  const missing = [...exported.keys()].filter((code) => !listed.includes(code)).map((code) => `${code} (${exported.get(code)})`);
  const extra = listed.filter((code) => !exported.has(code));
  assert.deepEqual({ missing, extra }, { missing: [], extra: [] });
});

test("docs/errors.md lists each code once", () => {
  const listed = tableCodes();
  assert.deepEqual(
    listed.filter((code, i) => listed.indexOf(code) !== i),
    [],
  );
});

test("a retired code is listed once and neither exported nor named in lib/ again", async () => {
  const exported = await exportedCodes();
  const retired = codesIn(tableParts().retired);
  assert.ok(retired.includes("ERR_AGENT_UNCONFIRMED"), "the retired-codes table is missing or unread");
  const reused: string[] = retired.filter((code, i) => exported.has(code) || tableCodes().includes(code) || retired.indexOf(code) !== i);
  for (const file of listFiles("lib", [".ts"])) {
    for (const m of readRepoFile(file).matchAll(/["'`](ERR_[A-Z0-9_]+)["'`]/g)) {
      if (retired.includes(m[1] ?? "")) reused.push(`${file}: ${m[1] ?? ""}`);
    }
  }
  assert.deepEqual(reused, []);
});

test("every code a source file names is in its module's exported list", async () => {
  const exported = await exportedCodes();
  const unlisted: string[] = [];
  for (const file of listFiles("lib", [".ts"])) {
    for (const m of readRepoFile(file).matchAll(/["'`](ERR_[A-Z0-9_]+)["'`]/g)) {
      const code = m[1] ?? "";
      if (!exported.has(code) && !NODE_CODES.has(code)) unlisted.push(`${file}: ${code}`);
    }
  }
  assert.deepEqual(unlisted, []);
});
