/*
 * WAL checkpoints off the event loop (issue 27). In WAL mode SQLite copies
 * the log back into the database file when a commit finds it past
 * `wal_autocheckpoint` pages (1,000 by default), inside the committing
 * call and with an fsync: tens of milliseconds of the event loop every few
 * commits of a write-heavy loop (BENCHMARKS.md (k): `Sweep` over 10⁶ rows
 * of each kind waited up to 1,066 ms at a time, p99 64 ms; 22 s of a 29 s
 * sweep at a tenth was checkpointing). `checkpointInBackground` turns the
 * connection's automatic checkpoint off and runs SQLite's PASSIVE
 * checkpoint from a worker thread with a connection of its own: it copies
 * what no reader still needs without waiting for any lock, the writer goes
 * on meanwhile, and the next commit after a complete checkpoint reuses the
 * log from its start (sqlite.org/wal.html#ckpt). A worker that fails hands
 * checkpoints back to the connection, so the log never grows unchecked.
 */
import { inspect } from "node:util";
import { Worker } from "node:worker_threads";
import type { DB } from "./handle.ts";
import { BUSY_TIMEOUT } from "./open.ts";

/** Milliseconds between two checkpoints of the worker. */
export const CHECKPOINT_INTERVAL: number = 200;

/** SQLite's own `wal_autocheckpoint` (pages), given back to the connection when the worker stops or fails. */
export const AUTOCHECKPOINT_PAGES: number = 1000;

/** The worker's state in shared memory: running, or its connection closed. */
const RUNNING = 0;

/**
 * Checkpoints `db`'s log from a worker thread from now on (nothing for an
 * in-memory database). Returns the function that stops it: it waits for
 * the worker to close its connection (at most `BUSY_TIMEOUT` ms, the time
 * of a checkpoint under way), so that closing `db` next closes the last
 * connection and SQLite checkpoints and removes the log as usual.
 * `onFailure` hears of a worker that could not start or died; checkpoints
 * are then the connection's again.
 */
export function checkpointInBackground(db: DB, onFailure?: (error: Error) => void): () => void {
  if (db.memory) return () => {};
  const state = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(new URL("./checkpoint-worker.js", import.meta.url), {
    workerData: { path: db.name, interval: CHECKPOINT_INTERVAL, busyTimeout: BUSY_TIMEOUT, state },
  });
  // The worker never keeps the process alive: an idle process may exit.
  worker.unref();
  db.pragma("wal_autocheckpoint = 0");
  let stopped = false;
  let failure: Error | undefined;
  const handBack = (): void => {
    if (db.open) db.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
  };
  // An error thrown in the worker arrives cloned: better-sqlite3's SqliteError as a plain object ({ code }).
  worker.once("error", (error: unknown) => {
    failure = error instanceof Error ? error : new Error(`the checkpoint worker failed: ${inspect(error)}`);
  });
  worker.once("exit", () => {
    if (stopped) return;
    stopped = true;
    handBack();
    onFailure?.(failure ?? new Error("the checkpoint worker exited"));
  });
  return () => {
    if (stopped) return;
    stopped = true;
    worker.postMessage("stop");
    Atomics.wait(state, 0, RUNNING, BUSY_TIMEOUT);
    handBack();
  };
}
