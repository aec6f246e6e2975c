/*
 * The one way latch runs a piece of work in a transaction of its own: `BEGIN IMMEDIATE` … `COMMIT` (the write lock
 * taken at once, so two writers never both read and then fail to upgrade), or a savepoint when the handle is already in
 * a transaction, as better-sqlite3's wrapped functions do. better-sqlite3's `transaction()` builds four wrappers and
 * defines five properties on each every time it is asked (issue 44: 5% of a tool call's CPU, asked three to five times
 * a call), so the wrapper is made once per handle and given the work to run.
 */

/** What `immediately` needs of a database handle (lib/db `DB`; this module imports nothing but Node). */
export interface TransactionHandle {
  transaction<F extends (run: () => unknown) => unknown>(fn: F): { immediate(run: () => unknown): unknown };
}

const wrappers = new WeakMap<TransactionHandle, { immediate(run: () => unknown): unknown }>();

/** Runs `work` (synchronous) in one IMMEDIATE transaction on `db`, or a savepoint inside the current one; returns its result. */
export function immediately<T>(db: TransactionHandle, work: () => T): T {
  let wrapper = wrappers.get(db);
  if (wrapper === undefined) {
    wrapper = db.transaction((run: () => unknown) => run());
    wrappers.set(db, wrapper);
  }
  return wrapper.immediate(work) as T;
}
