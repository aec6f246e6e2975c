import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test, type TestContext } from "node:test";
import { BUSY_TIMEOUT, PRAGMAS } from "../../lib/db/open.ts";
import { OpenDB } from "../../lib/db/index.ts";

function tempDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), "latch-db-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe("OpenDB()", () => {
  test("applies the pragmas to a file database, creating its directory", (t) => {
    const path = join(tempDir(t), "a", "b", "app.db");
    const db = OpenDB(path);
    t.after(() => db.close());
    assert.ok(existsSync(path));
    const want: [string, unknown][] = [
      ["journal_mode", "wal"],
      ["foreign_keys", 1],
      ["synchronous", 1],
      ["busy_timeout", 5000],
      ["trusted_schema", 0],
    ];
    for (const [name, value] of want) assert.equal(db.pragma(name, { simple: true }), value, name);
    assert.equal(BUSY_TIMEOUT, 5000);
  });

  test("orders busy_timeout first and WAL before the rest", () => {
    assert.equal(PRAGMAS.length, 5);
    assert.match(PRAGMAS[0] ?? "", /^busy_timeout/);
    assert.match(PRAGMAS[1] ?? "", /^journal_mode = WAL$/);
  });

  test("enforces foreign keys", (t) => {
    const db = OpenDB(join(tempDir(t), "fk.db"));
    t.after(() => db.close());
    db.exec("CREATE TABLE parent (id INTEGER PRIMARY KEY); CREATE TABLE child (p INTEGER REFERENCES parent(id))");
    assert.throws(() => db.exec("INSERT INTO child VALUES (42)"), { code: "SQLITE_CONSTRAINT_FOREIGNKEY" });
  });

  test("keeps WAL across a reopen", (t) => {
    const path = join(tempDir(t), "wal.db");
    OpenDB(path).close();
    const db = OpenDB(path);
    t.after(() => db.close());
    assert.equal(db.pragma("journal_mode", { simple: true }), "wal");
  });

  for (const path of [":memory:", ""]) {
    test(`opens ${JSON.stringify(path)} in memory with the other pragmas`, (t) => {
      const db = OpenDB(path);
      t.after(() => db.close());
      assert.equal(db.memory, true);
      assert.equal(db.pragma("journal_mode", { simple: true }), "memory");
      assert.equal(db.pragma("foreign_keys", { simple: true }), 1);
      assert.equal(db.pragma("trusted_schema", { simple: true }), 0);
    });
  }

  test("throws ERR_DB_OPEN with the cause when the path cannot be opened", (t) => {
    const dir = tempDir(t);
    assert.throws(
      () => OpenDB(dir),
      (err: unknown) => {
        assert.ok(err instanceof Error && "code" in err);
        assert.equal(err.code, "ERR_DB_OPEN");
        assert.match(err.message, /^open db: /);
        assert.ok(err.cause instanceof Error);
        return true;
      },
    );
  });
});
