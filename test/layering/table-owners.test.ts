/*
 * One owner per table (issue 37): a table belongs to the module whose
 * schema creates it (test/_support/tables.ts reads the CREATE TABLE
 * statements), and SQL naming a table after FROM, JOIN, INTO, UPDATE,
 * DELETE FROM or CREATE INDEX … ON appears only in its owner's files. What another module needs
 * goes through the owner's door (lib/db `AccountRows` for a person's
 * rows). A foreign key (`REFERENCES`) is not counted: it declares the link
 * the owner's door serves, and SQLite enforces it.
 *
 * And the event log is append-only (docs/spec.md §6.2): no SQL in lib/
 * updates or deletes an event except the one erasure path of an account's
 * deletion, lib/events/history.ts.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { describe, test } from "node:test";
import { ROOT } from "../_support/docs.ts";
import { sourceFiles } from "../_support/imports.ts";
import { tableOwners } from "../_support/tables.ts";

const LIB = join(ROOT, "lib");

/**
 * Foreign tables named on purpose, each with why: "<file>: <KEYWORD> <table>".
 * The list shrinks; it never grows without a reason a reviewer accepts.
 */
const ALLOWED: Record<string, string> = {
  // A shipped schema step is never edited (docs/handbook.md, "Tables"): it filled signin_accounts from the sessions once.
  "lib/signin/schema.ts: FROM sessions": "schema step signin/004-backfill-accounts",
};

const SQL_TABLE =
  /\b(FROM|JOIN|INTO|UPDATE(?: OR [A-Z]+)?|DELETE FROM|INDEX(?: IF NOT EXISTS)? [a-z_][a-z0-9_]* ON)\s+"?([a-z_][a-z0-9_]*)"?/g;

/** The code of a file without its comment lines, as tables.ts reads it. */
function code(file: string): string {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => !/^\s*(\*|\/\*|\/\/)/.test(line))
    .join("\n");
}

/** Every `<file>: <KEYWORD> <table>` in lib/ naming a table of another module. */
function foreignSQL(owners: Map<string, string[]>): string[] {
  const ownerOf = new Map([...owners].flatMap(([module, tables]) => tables.map((t) => [t, module] as const)));
  const found = new Set<string>();
  for (const file of sourceFiles(LIB)) {
    const path = relative(ROOT, file).split(sep).join("/");
    const module = path.split("/")[1] ?? "";
    for (const m of code(file).matchAll(SQL_TABLE)) {
      const owner = ownerOf.get(m[2] ?? "");
      const keyword = (m[1] ?? "").startsWith("UPDATE") ? "UPDATE" : (m[1] ?? "").startsWith("INDEX") ? "INDEX ON" : (m[1] ?? "");
      if (owner !== undefined && owner !== module) found.add(`${path}: ${keyword} ${m[2]}`);
    }
  }
  return [...found].sort();
}

describe("one owner per table", () => {
  const owners = tableOwners(LIB);

  test("the reader finds SQL naming a table, quoted or not, after each keyword", () => {
    const seen = [
      ...'SELECT 1 FROM "a" JOIN b; INSERT INTO c; UPDATE OR REPLACE d SET; DELETE FROM e; CREATE INDEX f_g ON f (g)'.matchAll(SQL_TABLE),
    ].map((m) => m[2]);
    assert.deepEqual(seen, ["a", "b", "c", "d", "e", "f"]);
  });

  test("each table has one owner", () => {
    const all = [...owners.values()].flat();
    assert.deepEqual(
      all.filter((t, i) => all.indexOf(t) !== i),
      [],
    );
    assert.ok(all.length >= 20, "fewer than 20 tables found");
  });

  test("no SQL in lib/ names another module's table (but the allowed)", () => {
    assert.deepEqual(
      foreignSQL(owners).filter((use) => ALLOWED[use] === undefined),
      [],
    );
  });

  test("every allowed use is still there (take it off the list once it is gone)", () => {
    const found = new Set(foreignSQL(owners));
    assert.deepEqual(
      Object.keys(ALLOWED).filter((use) => !found.has(use)),
      [],
    );
  });
});

describe("the event log is append-only", () => {
  const ERASURE = "lib/events/history.ts";
  const REWRITE = /\b(UPDATE(?: OR [A-Z]+)?\s+"?events"?\s+SET|DELETE\s+FROM\s+"?events"?|REPLACE\s+INTO\s+"?events"?)\b/;

  test("the reader finds each kind of rewrite", () => {
    for (const sql of [
      "UPDATE events SET",
      'DELETE FROM "events" WHERE',
      "INSERT OR REPLACE INTO events",
      "UPDATE OR REPLACE events SET",
    ]) {
      assert.match(sql, REWRITE);
    }
    assert.doesNotMatch("INSERT INTO events (stream)", REWRITE);
  });

  // Schema step events/005-chain (issue 41) fills the links of the events that had none; it changes no column they had.
  const CHAINING = "lib/events/chain.ts";

  test(`no file of lib/ updates or deletes an event but the erasure path (${ERASURE})`, () => {
    const rewriting = sourceFiles(LIB)
      .map((file) => relative(ROOT, file).split(sep).join("/"))
      .filter((path) => path !== ERASURE && path !== CHAINING && REWRITE.test(code(join(ROOT, path))));
    assert.deepEqual(rewriting, []);
    assert.match(code(join(ROOT, ERASURE)), REWRITE, "the erasure path is where the test looks for it");
  });

  test(`the chaining step (${CHAINING}) sets only the two links`, () => {
    const rewrites = [...code(join(ROOT, CHAINING)).matchAll(new RegExp(REWRITE.source + "([^\n]*)", "g"))].map((m) => m[0]);
    assert.deepEqual(rewrites, ['UPDATE events SET prev_hash = ?, hash = ? WHERE stream = ? AND seq = ?");']);
  });
});
