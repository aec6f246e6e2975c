/*
 * The one rate limiter: a sliding-window log (lib/internal/README.md). A
 * refusal says when the take that filled the window leaves it. The log is
 * its module's own, so no module's SQL names another's table.
 */
/** At most `Max` takes within any `Window` ms; `Paced`: then one take per `Window` (a token bucket). */
export interface Limit {
  readonly Max: number;
  readonly Window: number;
  readonly Paced?: boolean;
}

/** Where a limit's takes are logged: memory, or its module's own table. */
export interface LimitLog {
  /** The time (Unix ms) of `key`'s `nth` newest take after `since` (1: the latest), or undefined when it has fewer. */
  newest(key: string, since: number, nth: number): number | undefined;
  /** Logs a take of `key` at `at`; absent where the module's own row is the take (a registration). */
  record?(key: string, at: number): void;
}

/** Whole seconds for `Retry-After` from a wait in ms: rounded up, at least 1 (RFC 9110 §10.2.3: delay-seconds). */
export function retryAfterSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

/** 0 when `key` has room under `limit` at `now` (Unix ms), else the whole seconds until it has. Logs nothing. */
export function limitWait(log: LimitLog, key: string, limit: Limit, now: number): number {
  // The window frees room when the take that put it at Max (the Max-th newest) leaves it.
  const at = log.newest(key, now - limit.Window, limit.Max);
  return at === undefined ? 0 : retryAfterSeconds(at + limit.Window - now);
}

/** Takes one from `key`'s room under `limit`: 0, the take logged; or the whole seconds to wait, nothing logged. */
export function takeLimit(log: LimitLog, key: string, limit: Limit, now: number): number {
  const wait = limitWait(log, key, limit, now);
  const previous = limit.Paced === true ? log.newest(key, now - limit.Window, 1) : undefined;
  if (wait === 0) log.record?.(key, previous === undefined ? now : Math.max(now, previous + limit.Window));
  return wait;
}

/**
 * A log in memory, holding at most `Max` times per key. Keys whose takes all
 * left the window are dropped whenever the keys doubled since the last look
 * (amortized O(1)): memory follows the keys taking lately, not refusals.
 */
export class MemoryLog implements LimitLog {
  readonly #takes = new Map<string, number[]>();
  #pruneAbove = 0;

  newest(key: string, since: number, nth: number): number | undefined {
    if (this.#takes.size > this.#pruneAbove) {
      for (const [k, times] of this.#takes) if ((times.at(-1) ?? since) <= since) this.#takes.delete(k);
      this.#pruneAbove = 2 * this.#takes.size;
    }
    const times = (this.#takes.get(key) ?? []).filter((at) => at > since);
    if (times.length === 0) this.#takes.delete(key);
    else this.#takes.set(key, times);
    return times.at(-nth);
  }

  record(key: string, at: number): void {
    this.#takes.set(key, [...(this.#takes.get(key) ?? []), at]);
  }

  /** How many keys have takes logged. */
  get size(): number {
    return this.#takes.size;
  }
}
