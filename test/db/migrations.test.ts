import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { applyMigrations, type DB } from "../../lib/db/index.ts";
import { assertCode, open, tempFile } from "../_support/db.ts";

const version = (db: DB): unknown => db.pragma("user_version", { simple: true });

const v1 = ["CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)", "ALTER TABLE notes ADD COLUMN dropped_at TEXT"];

describe("ApplyMigrations()", () => {
  test("applies each migration once across two boots", (t) => {
    const path = tempFile(t);
    const first = open(t, path);
    assert.equal(applyMigrations(first, v1), 2);
    assert.equal(version(first), 2);
    first.close();
    const second = open(t, path);
    assert.equal(applyMigrations(second, v1), 0);
    assert.equal(version(second), 2);
    assert.equal(applyMigrations(second, [...v1, "CREATE INDEX notes_body ON notes (body)"]), 1);
    assert.equal(version(second), 3);
  });

  test("refuses a list shorter than what was applied", (t) => {
    const db = open(t, tempFile(t));
    applyMigrations(db, v1);
    assertCode(() => applyMigrations(db, v1.slice(0, 1)), "ERR_DB_MIGRATIONS_REMOVED", /2 applied but only 1 are listed/);
    assert.equal(version(db), 2);
  });

  const destructive = [
    "DROP TABLE notes",
    "drop index notes_body",
    "ALTER TABLE notes RENAME TO old_notes",
    "ALTER TABLE notes RENAME COLUMN body TO text",
    "ALTER TABLE notes DROP COLUMN body",
    "CREATE TABLE x (a); DROP TABLE x",
  ];
  for (const sql of destructive) {
    test(`refuses ${JSON.stringify(sql)} before running it`, (t) => {
      const db = open(t, tempFile(t));
      applyMigrations(db, v1);
      assertCode(() => applyMigrations(db, [...v1, sql]), "ERR_DB_MIGRATION_NOT_ADDITIVE", /migration 2 drops or renames/);
      assert.equal(version(db), 2);
      assert.equal(db.prepare("SELECT name FROM sqlite_master WHERE name IN ('notes', 'x')").all().length, 1);
    });
  }

  test("does not mistake words containing drop or rename for them", (t) => {
    const db = open(t, tempFile(t));
    assert.equal(applyMigrations(db, [...v1, "ALTER TABLE notes ADD COLUMN renamed_from TEXT", "CREATE TABLE drop_log (x)"]), 4);
  });

  test("leaves user_version and the schema unchanged when a migration fails", (t) => {
    const db = open(t, tempFile(t));
    const list = [...v1, "CREATE TABLE half (x); INSERT INTO no_such_table VALUES (1)", "CREATE TABLE after (x)"];
    assert.throws(
      () => applyMigrations(db, list),
      (err: unknown) => {
        assert.ok(err instanceof Error && "code" in err);
        assert.equal(err.code, "ERR_DB_STEP_FAILED");
        assert.match(err.message, /migration 2 failed/);
        return true;
      },
    );
    assert.equal(version(db), 2);
    const names = db.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all();
    assert.deepEqual(
      names.map((r) => r.name),
      ["notes"],
    );
  });
});
