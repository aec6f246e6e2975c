/*
 * The worker half of `checkpointInBackground` (checkpoint.ts): a connection
 * of its own to the database file, a PASSIVE checkpoint every `interval`
 * milliseconds (nothing to copy costs a look at the log's index), and on
 * "stop" its connection closed before it says so in the shared state.
 * An error ends the thread; the connection then checkpoints itself again.
 */
import Database from "better-sqlite3";
import { parentPort, workerData } from "node:worker_threads";

const { path, interval, busyTimeout, state } = workerData as { path: string; interval: number; busyTimeout: number; state: Int32Array };
const db = new Database(path, { fileMustExist: true });
db.pragma(`busy_timeout = ${busyTimeout}`);
const timer = setInterval(() => db.pragma("wal_checkpoint(PASSIVE)"), interval);
parentPort?.once("message", () => {
  clearInterval(timer);
  db.close();
  Atomics.store(state, 0, 1);
  Atomics.notify(state, 0);
  parentPort?.close();
});
