import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, rmSync, watch } from "node:fs";
import { tmpdir } from "node:os";
import { spawnSync } from "node:child_process";
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
      // 2: MEMORY. A savepoint's journal stays in memory (issue 44: on disk, every write call opened, wrote and unlinked one).
      ["temp_store", 2],
    ];
    for (const [name, value] of want) assert.equal(db.pragma(name, { simple: true }), value, name);
    assert.equal(BUSY_TIMEOUT, 5000);
  });

  test("orders busy_timeout first and WAL before the rest", () => {
    assert.equal(PRAGMAS.length, 6);
    assert.match(PRAGMAS[0] ?? "", /^busy_timeout/);
    assert.match(PRAGMAS[1] ?? "", /^journal_mode = WAL$/);
  });

  // Issue 44: an event appended inside a record's write is a savepoint of it, and the pages the savepoint changes are
  // journaled; with temp files on disk, past 64 KiB each write opened a file in the temp directory. Pinned by what SQLite
  // says of its temp files: a savepoint changing more than that leaves none behind in the directory it would use.
  test("keeps a savepoint's journal in memory", async (t) => {
    const dir = tempDir(t);
    const temp = join(dir, "tmp");
    mkdirSync(temp);
    const opened: string[] = [];
    const watcher = watch(temp, (_event, name) => opened.push(String(name)));
    t.after(() => watcher.close());
    // About 100 pages of rows, each changed in place by the inner savepoint (more than SQLite's 64 KiB kept before a
    // spill). SQLite reads SQLITE_TMPDIR once, as it starts: a process of its own.
    const script = `
      const { OpenDB } = await import(${JSON.stringify(new URL("../../lib/db/index.js", import.meta.url).href)});
      const db = OpenDB(${JSON.stringify(join(dir, "journal.db"))});
      db.exec("CREATE TABLE pages (body TEXT)");
      const insert = db.prepare("INSERT INTO pages VALUES (?)");
      db.transaction(() => { for (let k = 0; k < 4000; k++) insert.run(String(k).padEnd(90, ".")); })();
      db.transaction(() => {
        insert.run("first");
        db.transaction(() => db.prepare("UPDATE pages SET body = upper(body) || '!'").run())();
      })();
      db.close();`;
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { env: { ...process.env, SQLITE_TMPDIR: temp } });
    assert.equal(run.status, 0, String(run.stderr));
    // The kernel queued the directory's events as the files came and went: the next turn of the loop reads them.
    await new Promise((resolve) => setTimeout(resolve, 10));
    assert.deepEqual(opened, []);
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
