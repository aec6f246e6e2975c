/*
 * Helpers of the jobs suites (the fake clock is test/_support/clock.ts).
 */

/** Resolves after pending promise callbacks and I/O callbacks of this turn have run. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
