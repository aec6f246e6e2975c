/*
 * The one way latch deletes expired rows: in steps, each a DELETE of at most
 * SWEEP_STEP rows picked by rowid along an index, its own short transaction,
 * its pages checkpointed, the event loop turning before the next. A million
 * expired rows never hold a request back for longer than one step (issue 27,
 * BENCHMARKS.md (k)). Every component's `Sweep` runs its tables through it;
 * the application calls those on its own interval.
 */
import { setImmediate } from "node:timers/promises";
import type { DB } from "./handle.ts";

/**
 * Rows one step deletes. Over 10⁶ expired rows of each kind (a 765 MB database, the sessions' random token hashes
 * touching six B-trees at random pages) a step of 50 and its checkpoint held the event loop up to 51 ms on a quiet
 * machine, p99 14 ms; a step of 25 up to 30 ms, p99 9 ms, under the 50 ms issue 27 allows (BENCHMARKS.md (k)).
 */
export const SWEEP_STEP: number = 25;

/** One table's step: deletes at most `limit` expired rows (by rowid, along an index) and returns how many. */
export type SweepStep = (limit: number) => number;

/** Runs each table's steps until one deletes fewer than SWEEP_STEP, the loop turning between steps (the first before it returns); resolves with the rows per name. */

export async function sweepInSteps<Name extends string>(db: DB, steps: Readonly<Record<Name, SweepStep>>): Promise<Record<Name, number>> {
  const total = {} as Record<Name, number>;
  let stepped = false;
  for (const name of Object.keys(steps) as Name[]) {
    total[name] = 0;
    for (let deleted = SWEEP_STEP; deleted === SWEEP_STEP; stepped = true) {
      if (stepped) await setImmediate();
      deleted = steps[name](SWEEP_STEP);
      total[name] += deleted;
      // Each step copies what it wrote into the database file itself. Left to SQLite, the commit that finds the log past
      // 1,000 pages copies them all at once: 35-80 ms of the event loop every few steps, and over 10⁶ rows up to 1 s
      // (BENCHMARKS.md (k)). A PASSIVE checkpoint waits for no one; with none of the sweep's pages left, no request's
      // commit copies them either.
      if (deleted > 0) db.pragma("wal_checkpoint(PASSIVE)");
    }
  }
  return total;
}
