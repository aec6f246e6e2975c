/*
 * Checkpoints off the event loop (lib/db checkpoint.ts, issue 27): the
 * connection stops checkpointing at its commits, a worker thread's own
 * connection copies the log into the database file, and stopping the
 * worker gives checkpoints back and closes its connection first, so that
 * closing the handle still removes the log. A worker that cannot start
 * gives them back too. The runtime does this for the database it opens.
 */
import assert from "node:assert/strict";
import { existsSync, rmSync, statSync } from "node:fs";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { checkpointInBackground, OpenDB } from "../../lib/db/index.ts";
import { AUTOCHECKPOINT_PAGES } from "../../lib/db/checkpoint.ts";
import { Handler } from "../../lib/index.ts";
import { Mux } from "../../lib/router/index.ts";
import { discardLogger } from "../../lib/http/index.ts";
import type { DB } from "../../lib/db/index.ts";
import { open, tempFile } from "./../_support/db.ts";

// A worker thread works on its own time: wait for what it does, with no deadline of our own (the runner's holds).
async function until(done: () => boolean): Promise<void> {
  while (!done()) await sleep(10);
}

const autocheckpoint = (db: DB): unknown => db.pragma("wal_autocheckpoint", { simple: true });

describe("checkpointInBackground", () => {
  it("checkpoints from a worker instead of at the connection's commits; stopping gives them back and the log goes at close", async (t) => {
    const path = tempFile(t);
    const db = open(t, path);
    db.exec("CREATE TABLE blobs (b BLOB)");
    assert.equal(autocheckpoint(db), AUTOCHECKPOINT_PAGES, "SQLite's default before");
    const stop = checkpointInBackground(db);
    assert.equal(autocheckpoint(db), 0, "no checkpoint at a commit");
    // Twice the pages that would make a commit checkpoint: the worker copies them into the database file.
    const insert = db.prepare("INSERT INTO blobs VALUES (randomblob(4000))");
    db.transaction(() => {
      for (let i = 0; i < 2 * AUTOCHECKPOINT_PAGES; i++) insert.run();
    })();
    await until(() => statSync(path).size >= 2 * AUTOCHECKPOINT_PAGES * 4000);
    stop();
    assert.equal(autocheckpoint(db), AUTOCHECKPOINT_PAGES, "given back");
    db.close();
    assert.equal(existsSync(`${path}-wal`), false, "the last connection closed removed the log: the worker's was closed first");
  });

  it("gives checkpoints back to the connection when the worker cannot start", async (t) => {
    const path = tempFile(t);
    const db = open(t, path);
    rmSync(path);
    // The worker never keeps the process alive (it is unref'd): this interval does, until it has failed.
    const alive = setInterval(() => {}, 1000);
    const failed = await new Promise<Error>((resolve) => checkpointInBackground(db, resolve));
    clearInterval(alive);
    assert.match(failed.message, /SQLITE_CANTOPEN/);
    assert.equal(autocheckpoint(db), AUTOCHECKPOINT_PAGES);
  });

  it("does nothing for an in-memory database", () => {
    const db = OpenDB(":memory:");
    const stop = checkpointInBackground(db);
    stop();
    db.close();
  });

  it("runs for the database the runtime opens (Options.DBPath), until cleanup", (t) => {
    const path = tempFile(t);
    let served: DB | undefined;
    const [, cleanup] = Handler({
      DBPath: path,
      Logger: discardLogger,
      Router: (db) => {
        served = db;
        return new Mux();
      },
    });
    assert.ok(served !== undefined);
    assert.equal(autocheckpoint(served), 0);
    served.exec("CREATE TABLE t (x)");
    cleanup();
    assert.equal(served.open, false);
    assert.equal(existsSync(`${path}-wal`), false, "closed after the worker's connection");
  });
});
