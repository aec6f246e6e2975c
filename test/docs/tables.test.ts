/*
 * Each module README states the tables its module owns, in one findable
 * line: a row of its "What it owns" table whose kind names tables
 * (`| Tables | … |`, `| Cookies, tables, routes | none |`) or a line
 * `Routes, tables, cookies: none`. The tables it claims (the backticked
 * names outside parentheses before the first ";") must be exactly those the
 * module's files create (test/_support/tables.ts). A table added, moved or
 * dropped without its README fails here.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, test } from "node:test";
import { ROOT, listFiles, readRepoFile } from "../_support/docs.ts";
import { tableOwners } from "../_support/tables.ts";

/**
 * READMEs that cannot state their tables truly yet, each with what is
 * wrong; the test fails once one does, so the entry is taken out.
 */
const NOT_YET: Record<string, string> = {};

/** Returns the lines of a README that state tables (see the header). */
function tableLines(markdown: string): string[] {
  const row = /^\|\s*([^|`]*\btables?\b[^|`]*)\|([^|]*)\|\s*$/i;
  const line = /^([\w ,]*\btables\b[\w ,]*):\s*(.*)$/i;
  return markdown.split("\n").flatMap((text) => {
    const m = row.exec(text) ?? line.exec(text);
    return m === null ? [] : [m[2] ?? ""];
  });
}

/** Returns the table names a statement claims: backticked lowercase names outside parentheses, before the first ";". */
function claimedTables(statement: string): string[] {
  let depth = 0;
  let outside = "";
  for (const ch of statement) {
    if (ch === "(") depth++;
    else if (ch === ")") depth = Math.max(0, depth - 1);
    else if (depth === 0 && ch === ";") break;
    else if (depth === 0) outside += ch;
  }
  return [...outside.matchAll(/`([a-z][a-z0-9_]*)`/g)].map((m) => m[1] ?? "").sort();
}

/** What is wrong with a module README's statement of its tables, or undefined. */
function problem(module: string, created: readonly string[]): string | undefined {
  const lines = tableLines(readRepoFile(`lib/${module}/README.md`));
  if (lines.length !== 1) return `lib/${module}/README.md states its tables ${lines.length} times, not once`;
  const claimed = claimedTables(lines[0] ?? "");
  if (claimed.join(" ") === created.join(" ")) return undefined;
  return `lib/${module}/README.md claims ${claimed.join(", ") || "none"}, its files create ${created.join(", ") || "none"}`;
}

describe("module READMEs state the tables their modules create", () => {
  const owners = tableOwners(join(ROOT, "lib"));
  const modules = listFiles("lib", ["index.ts"])
    .map((door) => door.split("/"))
    .filter((parts) => parts.length === 3)
    .map((parts) => parts[1] ?? "");

  test("the readers", () => {
    assert.deepEqual(tableLines("| Tables, cookies | none |\n| `Tables` | x |\nRoutes, tables, cookies: none.\n"), [" none ", "none."]);
    assert.deepEqual(claimedTables(" `a` (`col`; `b_c`), `d`, steps `m/001`; `e` "), ["a", "d"]);
    assert.deepEqual(tableLines("Tables, routes: none; cookies: `x`\n"), ["none; cookies: `x`"]);
  });

  test("the owner map finds the schemas", () => {
    assert.deepEqual(owners.get("events"), ["events"]);
    assert.ok([...owners.values()].flat().length >= 20, "fewer than 20 tables found");
  });

  test("each README's Tables line names exactly its module's tables", () => {
    assert.deepEqual(
      modules.filter((m) => NOT_YET[m] === undefined).flatMap((m) => problem(m, owners.get(m) ?? []) ?? []),
      [],
    );
  });

  test("each README on the not-yet list is still wrong (take it off once it is true)", () => {
    assert.deepEqual(
      Object.keys(NOT_YET).filter((m) => problem(m, owners.get(m) ?? []) === undefined),
      [],
    );
  });
});
