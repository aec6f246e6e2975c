/*
 * docs/guide.md quotes its application instead of retyping it: every
 * ```ts excerpt=<file> block must appear, line for line and at one
 * indentation, in that file (which `npm test` compiles and runs end to end
 * in test/e2e/guide.test.ts). The guide walks the steps the issue names,
 * in order.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { codeBlocks, readRepoFile } from "../_support/docs.ts";

const GUIDE = readRepoFile("docs/guide.md");

/** Reports whether `file` contains `code`'s lines, each shifted by the same indentation. */
function quotes(file: string, code: string): boolean {
  const lines = code.replace(/\n$/, "").split("\n");
  for (let indent = 0; indent <= 12; indent += 2) {
    const pad = " ".repeat(indent);
    if (file.includes(lines.map((line) => (line === "" ? "" : pad + line)).join("\n"))) return true;
  }
  return false;
}

test("every excerpt in docs/guide.md is verbatim from the file it names", () => {
  const excerpts = codeBlocks(GUIDE).filter((block) => /(^|\s)excerpt=/.test(block.info));
  assert.ok(excerpts.length >= 6, `only ${excerpts.length} excerpts`);
  const stale = excerpts
    .filter((block) => !quotes(readRepoFile(/excerpt=(\S+)/.exec(block.info)?.[1] ?? ""), block.code))
    .map((block) => `docs/guide.md:${block.line} is not in ${block.info}`);
  assert.deepEqual(stale, []);
});

test("step 6 quotes the whole conformance test, its imports and catalogs too, so every name it uses is in the excerpt", () => {
  const file = "examples/guide/conformance.test.ts";
  const excerpt = codeBlocks(GUIDE).find((block) => block.info === `ts excerpt=${file}`);
  assert.equal(`${excerpt?.code ?? ""}\n`, readRepoFile(file).replace(/^\/\*[\s\S]*?\*\/\n/, ""));
});

test("the guide builds the application in the issue's order of steps", () => {
  const steps = [...GUIDE.matchAll(/^## Step (\d+): (.+)$/gm)].map((m) => `${m[1]}: ${m[2]}`);
  assert.deepEqual(steps, [
    "1: a runtime and a Mux",
    "2: sign-in by emailed link",
    "3: passkeys",
    "4: a background job",
    "5: an agent token and a tool call",
    "6: a resource from the manifest",
    "7: an MCP client and an approved write",
    "8: a team resource",
    "9: the account",
  ]);
  for (const file of [
    "examples/guide/main.ts",
    "examples/guide/job.ts",
    "examples/guide/agents.ts",
    "examples/guide/expenses.ts",
    "examples/guide/connect.ts",
    "examples/guide/teams.ts",
    "examples/guide/account.ts",
    "examples/starter/tasks.ts",
  ]) {
    assert.ok(GUIDE.includes(`excerpt=${file}`), `${file} is quoted`);
  }
});
