/*
 * A clock tests move by hand, for registries and handlers that take a `Clock`.
 */
import type { Clock } from "../../lib/http/index.ts";

/** A settable clock. */
export interface ManualClock extends Clock {
  /** Moves the clock forward by `ms`. */
  advance(ms: number): void;
}

/** Returns a clock that starts at `start` and moves only when told. */
export function manualClock(start: Date = new Date("2025-01-01T00:00:00Z")): ManualClock {
  let t = start.getTime();
  return {
    now: () => new Date(t),
    advance: (ms) => {
      t += ms;
    },
  };
}

/** Resolves after pending promise callbacks and I/O callbacks of this turn have run. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
