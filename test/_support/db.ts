/* Shared by the database suites: a throwaway SQLite file and its handle, both cleaned up after the test. */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestContext } from "node:test";
import { OpenDB, type DB } from "../../lib/db/index.ts";

/** Returns a path to a database file in a fresh temporary directory, removed after the test. */
export function tempFile(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), "latch-db-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, "app.db");
}

/** Opens `path` with OpenDB and closes it after the test (unless the test closed it). */
export function open(t: TestContext, path: string): DB {
  const db = OpenDB(path);
  t.after(() => {
    if (db.open) db.close();
  });
  return db;
}

/** Asserts that `fn` throws an Error with `code` and a message matching `message`. */
export function assertCode(fn: () => unknown, code: string, message: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof Error && "code" in err);
    assert.equal(err.code, code);
    assert.match(err.message, message);
    return true;
  });
}
