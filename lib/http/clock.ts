/*
 * Time and randomness are injected (STYLE.md §5) so tests can move the clock
 * and pin random bytes. Production code passes `systemClock`. Beside them,
 * the one constant-time string comparison every component uses for secrets.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";

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

/**
 * Reports whether two strings are equal, in time that depends only on their
 * lengths (node:crypto `timingSafeEqual` over their UTF-8 bytes): for
 * comparing secrets and challenges, where `===` would leak a prefix.
 */
export function equalSecret(a: string, b: string): boolean {
  const x = Buffer.from(a, "utf8");
  const y = Buffer.from(b, "utf8");
  return x.length === y.length && timingSafeEqual(x, y);
}
