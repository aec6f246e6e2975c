import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { applySchema, mergeSchemas, type DB, type Step } from "../../lib/db/index.ts";
import { assertCode, open, tempFile } from "../_support/db.ts";

function recorded(db: DB): string[] {
  return db
    .prepare<[], { name: string }>("SELECT name FROM latch_schema ORDER BY rowid")
    .all()
    .map((r) => r.name);
}

function tables(db: DB): string[] {
  return db
    .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name != 'latch_schema' ORDER BY name")
    .all()
    .map((r) => r.name);
}

const sessions: Step[] = [
  { Name: "session/001-sessions", SQL: "CREATE TABLE sessions (id TEXT PRIMARY KEY, subject TEXT NOT NULL)" },
  { Name: "session/002-index", SQL: "CREATE INDEX sessions_subject ON sessions (subject)" },
];
const signin: Step[] = [{ Name: "signin/001-tokens", SQL: "CREATE TABLE tokens (hash BLOB PRIMARY KEY, email TEXT NOT NULL)" }];

describe("ApplySchema()", () => {
  test("applies every step once, and nothing on a second boot", (t) => {
    const path = tempFile(t);
    const steps = mergeSchemas(sessions, signin);
    const first = open(t, path);
    assert.deepEqual(applySchema(first, steps), ["session/001-sessions", "session/002-index", "signin/001-tokens"]);
    first.close();
    const second = open(t, path);
    assert.deepEqual(applySchema(second, steps), []);
    assert.deepEqual(recorded(second), ["session/001-sessions", "session/002-index", "signin/001-tokens"]);
    assert.deepEqual(tables(second), ["sessions", "tokens"]);
  });

  test("applies only the steps added since the last boot", (t) => {
    const path = tempFile(t);
    applySchema(open(t, path), sessions);
    const db = open(t, path);
    assert.deepEqual(applySchema(db, [...sessions, ...signin]), ["signin/001-tokens"]);
  });

  test("refuses a step whose SQL changed after it was applied, naming it", (t) => {
    const path = tempFile(t);
    applySchema(open(t, path), sessions);
    const edited: Step[] = [
      sessions[0] ?? { Name: "", SQL: "" },
      { Name: "session/002-index", SQL: "CREATE INDEX sessions_subject ON sessions (subject, id)" },
    ];
    const db = open(t, path);
    assertCode(
      () => applySchema(db, [...edited, ...signin]),
      "ERR_DB_STEP_CHANGED",
      /step session\/002-index was applied with different SQL/,
    );
    assert.deepEqual(tables(db), ["sessions"], "no later step may run after a refusal");
  });

  test("refuses duplicate step names before running anything", (t) => {
    const db = open(t, ":memory:");
    const dup: Step[] = [...sessions, { Name: "session/001-sessions", SQL: "CREATE TABLE other (x)" }];
    assertCode(() => applySchema(db, dup), "ERR_DB_STEP_DUPLICATE", /step session\/001-sessions appears twice/);
    assert.deepEqual(tables(db), []);
  });

  test("rolls a failing step back and records nothing for it", (t) => {
    const db = open(t, tempFile(t));
    const steps: Step[] = [
      ...sessions,
      { Name: "bad/001", SQL: "CREATE TABLE half (x INTEGER); INSERT INTO no_such_table VALUES (1)" },
      ...signin,
    ];
    assert.throws(
      () => applySchema(db, steps),
      (err: unknown) => {
        assert.ok(err instanceof Error && "code" in err);
        assert.equal(err.code, "ERR_DB_STEP_FAILED");
        assert.match(err.message, /step bad\/001 failed/);
        assert.match(String(err.cause), /no_such_table/);
        return true;
      },
    );
    assert.deepEqual(recorded(db), ["session/001-sessions", "session/002-index"]);
    assert.deepEqual(tables(db), ["sessions"]);
  });

  test("records a SHA-256 checksum and an ISO applied_at", (t) => {
    const db = open(t, ":memory:");
    applySchema(db, signin);
    const row = db.prepare<[], { applied_at: string; checksum: string }>("SELECT applied_at, checksum FROM latch_schema").get();
    assert.ok(row !== undefined);
    assert.match(row.applied_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.match(row.checksum, /^[0-9a-f]{64}$/);
  });
});

describe("MergeSchemas()", () => {
  test("concatenates in order", () => {
    assert.deepEqual(
      mergeSchemas(sessions, [], signin).map((s) => s.Name),
      ["session/001-sessions", "session/002-index", "signin/001-tokens"],
    );
  });

  test("refuses a name that appears in two lists", () => {
    assertCode(
      () => mergeSchemas(sessions, [{ Name: "session/002-index", SQL: "SELECT 1" }]),
      "ERR_DB_STEP_DUPLICATE",
      /session\/002-index/,
    );
  });
});
