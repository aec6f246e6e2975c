// The checks of every options object's numbers, so each module refuses the same bad values with the same words: each returns what is wrong, or undefined.
/** The longest delay Node's timers honour: a longer one (Infinity included) fires after 1 ms (Node.js docs, `setTimeout`). */

export const MAX_TIMER_MS: number = 2 ** 31 - 1;

/** Reports what is wrong with `value` as a count: it must be a whole number of at least 1. */
export function countProblem(value: unknown): string | undefined {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) return "must be a whole number of at least 1";
  return undefined;
}

/** Reports what is wrong with `value` as a quantity: it must be a finite number above 0. */
export function positiveProblem(value: unknown): string | undefined {
  if (typeof value !== "number" || !Number.isFinite(value) || !(value > 0)) return "must be a finite number above 0";
  return undefined;
}

/** Reports what is wrong with `value` as a timer duration: a whole number of milliseconds from 1 to MAX_TIMER_MS. */
export function durationProblem(value: unknown): string | undefined {
  if (value === Infinity) return `must be at most ${MAX_TIMER_MS} ms (about 24.8 days): Node fires longer timers after 1 ms`;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) return "must be a whole number of milliseconds of at least 1";
  if (value > MAX_TIMER_MS) return `must be at most ${MAX_TIMER_MS} ms (about 24.8 days): Node fires longer timers after 1 ms`;
  return undefined;
}
