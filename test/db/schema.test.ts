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

  test("a step's Run works in its transaction and records the steps it did with their current SQL, forgetting the others", (t) => {
    const path = tempFile(t);
    applySchema(open(t, path), [...sessions, { Name: "session/003-old", SQL: "CREATE INDEX sessions_old ON sessions (id)" }]);
    const db = open(t, path);
    const wider: Step = { Name: "session/002-index", SQL: "CREATE INDEX sessions_subject ON sessions (subject, id)" };
    const rebuild: Step = {
      Name: "session/000-rebuild",
      SQL: "-- rebuilds the sessions index",
      Run: (handle, applied) => {
        assert.ok(applied.has("session/002-index") && !applied.has("session/000-rebuild"));
        handle.exec("DROP INDEX sessions_subject; DROP INDEX sessions_old; CREATE INDEX sessions_subject ON sessions (subject, id)");
        return ["session/002-index", "session/003-old"];
      },
    };
    assert.deepEqual(applySchema(db, [rebuild, sessions[0]!, wider]), ["session/000-rebuild"]);
    assert.deepEqual(recorded(db).sort(), ["session/000-rebuild", "session/001-sessions", "session/002-index"]);
    assert.deepEqual(applySchema(db, [rebuild, sessions[0]!, wider]), []);
  });

  test("a Run that throws rolls its step back, and its reason is in the message", (t) => {
    const db = open(t, tempFile(t));
    const refused: Step = {
      Name: "bad/002",
      SQL: "CREATE TABLE half (x INTEGER)",
      Run: () => {
        throw new Error("3 records do not convert");
      },
    };
    assertCode(() => applySchema(db, [...sessions, refused]), "ERR_DB_STEP_FAILED", /step bad\/002 failed: 3 records do not convert/);
    assert.deepEqual(tables(db), ["sessions"]);
  });

  test("a Run rebuilding a referenced table keeps the references (foreign keys off) and is refused when it breaks one", (t) => {
    const db = open(t, tempFile(t));
    const tables: Step[] = [
      { Name: "app/001", SQL: "CREATE TABLE parent (id TEXT PRIMARY KEY, x TEXT)" },
      { Name: "app/002", SQL: "CREATE TABLE child (id TEXT PRIMARY KEY, parent TEXT REFERENCES parent (id) ON DELETE CASCADE)" },
    ];
    applySchema(db, tables);
    db.exec("INSERT INTO parent VALUES ('p1', 'a'); INSERT INTO child VALUES ('c1', 'p1')");
    const rebuild = (name: string, keep: string): Step => ({
      Name: name,
      SQL: "-- rebuilds parent",
      Run: (handle) => {
        handle.exec(`CREATE TABLE parent_new (id TEXT PRIMARY KEY, x TEXT NOT NULL);
          INSERT INTO parent_new SELECT id, x FROM parent WHERE id = '${keep}';
          DROP TABLE parent; ALTER TABLE parent_new RENAME TO parent;`);
        return [];
      },
    });
    applySchema(db, [...tables, rebuild("app/003", "p1")]);
    assert.deepEqual(db.prepare("SELECT id, parent FROM child").all(), [{ id: "c1", parent: "p1" }]);
    assert.equal(db.pragma("foreign_keys", { simple: true }), 1);
    assertCode(
      () => applySchema(db, [...tables, rebuild("app/004", "none")]),
      "ERR_DB_STEP_FAILED",
      /app\/004 failed: a reference no longer finds its record/,
    );
    assert.deepEqual(db.prepare("SELECT id FROM parent").pluck().all(), ["p1"]);
    assert.equal(db.pragma("foreign_keys", { simple: true }), 1);
  });

  test("a changed step's Changed says the way forward in the refusal", (t) => {
    const path = tempFile(t);
    applySchema(open(t, path), sessions);
    const db = open(t, path);
    const edited: Step = { Name: "session/002-index", SQL: "CREATE INDEX x ON sessions (id)", Changed: () => "write step 003 instead" };
    assertCode(() => applySchema(db, [sessions[0]!, edited]), "ERR_DB_STEP_CHANGED", /applied with different SQL: write step 003 instead$/);
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
