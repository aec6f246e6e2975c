/*
 * docs/errors.md lists exactly the codes the modules define. The codes are
 * read from the compiled modules: every `*_ERROR_CODES` list exported by an
 * `errors.js` under dist/lib, whether or not the module's door makes it
 * public (exportedCodes in test/_support/docs.ts, which names.test.ts reads
 * too, to know the codes the docs may name). The sources are scanned too, so a code thrown
 * somewhere but missing from its module's list fails here as well. Retired
 * codes have their own table at the end of the document; one that comes
 * back (exported, or quoted in lib/) fails.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { codesIn, errorTables, exportedCodes, listFiles, readRepoFile } from "../_support/docs.ts";

// Codes that are Node's, not latch's: the jobs escape guard raises the unhandled-rejection one, the mailer reads the TLS one.
const NODE_CODES = new Set(["ERR_UNHANDLED_REJECTION", "ERR_TLS_CERT_ALTNAME_INVALID"]);

/** Returns the codes of the live tables of docs/errors.md, in order (duplicates kept). */
function tableCodes(): string[] {
  return codesIn(errorTables().live);
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
  const retired = codesIn(errorTables().retired);
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
