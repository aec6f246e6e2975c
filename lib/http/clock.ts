// Time and randomness are injected (STYLE.md §5) so tests can move the clock and pin random bytes.
import { randomBytes } from "node:crypto";

/** A source of the current time. */
export interface Clock {
  /** Returns the current time. */
  now(): Date;
}

/** The wall clock. */
export const systemClock: Clock = { now: () => new Date() };

/** A source of random bytes. */
export interface RandomReader {
  /** Returns `n` cryptographically random bytes. */
  read(n: number): Uint8Array;
}

/** Random bytes from `node:crypto`. */
export const cryptoRandom: RandomReader = { read: (n) => randomBytes(n) };
