/*
 * The one fake clock of the suites: it stands still until a test moves it,
 * and it is what every component taking a `Clock` (latch/http) is given.
 */
import type { Clock } from "../../lib/http/index.ts";

/** A clock tests move by hand. */
export class FakeClock implements Clock {
  #t: number;
  constructor(start: Date = new Date("2030-01-01T00:00:00Z")) {
    this.#t = start.getTime();
  }
  now(): Date {
    return new Date(this.#t);
  }
  /** Moves the clock forward by `ms`. */
  advance(ms: number): void {
    this.#t += ms;
  }
}
