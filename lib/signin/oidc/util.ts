/* Small helpers: a query parameter that must occur once, and a promise bounded by an abort signal. */

/** Returns the single value of `name`, or `undefined` when absent or repeated (RFC 6749 §3.1: never more than once). */
export function callbackParam(query: URLSearchParams, name: string): string | undefined {
  const values = query.getAll(name);
  return values.length === 1 ? values[0] : undefined;
}

/** Settles as `promise` does, or rejects with `signal`'s reason once it aborts: a lookup ignoring its signal is no longer waited for. */
export function settleBefore<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  const aborted = new Promise<never>((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
  return Promise.race([aborted, promise]);
}

/**
 * Returns a signal that aborts after `ms`, and a `cancel` that clears the
 * timer. Unlike `AbortSignal.timeout`, the timer keeps the process alive
 * while it runs and is a plain `setTimeout`, so tests can drive it with
 * `t.mock.timers`.
 */
export function deadline(ms: number): { signal: AbortSignal; cancel: () => void } {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException("lookup timed out", "TimeoutError")), ms);
  return { signal: controller.signal, cancel: () => clearTimeout(timer) };
}
