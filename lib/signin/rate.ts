/*
 * Sign-in rate limits, in SQLite so a restart keeps them: per address (its "+tag" folded), per client,
 * and a budget for strangers that never refuses a returning person, checked together before a link is
 * sent; every accepted Begin counts, refused ones do not (README "Rate limits").
 */
import { SWEEP_STEP, type DB } from "../db/index.ts";
import { clientKey, limitWait, type LimitLog, immediately } from "../internal/index.ts";
import type { Clock } from "../http/index.ts";

/** One sliding window: at most `Max` sends within `Window` ms. */
export interface RateWindow {
  Max: number;
  Window: number;
}

/** The three sign-in limits. */
export interface RateLimits {
  PerAddress: RateWindow;
  PerIP: RateWindow;
  Global: RateWindow;
}

const MINUTE = 60 * 1000;

/** Default limits: 5 links per address per 15 minutes, 20 per client IP per hour, 500 strangers per hour. */
export const DEFAULT_RATE_LIMITS: RateLimits = Object.freeze({
  PerAddress: Object.freeze({ Max: 5, Window: 15 * MINUTE }),
  PerIP: Object.freeze({ Max: 20, Window: 60 * MINUTE }),
  Global: Object.freeze({ Max: 500, Window: 60 * MINUTE }),
});

/**
 * Wrong codes one address may collect in an hour (10) before a browser that typed one takes no more
 * for it (OWASP ASVS 5.0 §6.6.3; README "Wrong codes lock the browser that typed them").
 */
export const CODE_MISS_LIMIT: RateWindow = Object.freeze({ Max: 10, Window: 60 * MINUTE });

/** Which limit refused a send. */
export type RateLimitName = "address" | "client" | "global";

/** The outcome of `Take`: allowed, or which limit refused and when to retry (whole seconds, at least 1). */
export type RateResult = { ok: true } | { ok: false; limit: RateLimitName; retryAfter: number };

/** Returns the per-address bucket key: the local part without its "+tag" (RFC 5233 subaddress). */
export function addressBucket(address: string): string {
  const at = address.lastIndexOf("@");
  const local = address.slice(0, at);
  const plus = local.indexOf("+");
  return plus > 0 ? `${local.slice(0, plus)}${address.slice(at)}` : address;
}

// The address's wrong codes, and one browser's (by its binding hash) for that address.
function codeBucket(address: string, bindingHash?: string): string {
  return bindingHash === undefined ? `code:${addressBucket(address)}` : `code:${addressBucket(address)}:${bindingHash}`;
}

/** The persistent sliding-window limiter: latch's one limiter over this module's own `signin_rate_events` rows. */
export class RateLimiter {
  readonly #db: DB;
  readonly #clock: Clock;
  readonly #limits: RateLimits;
  readonly #log: Required<LimitLog>;
  readonly #sweep;

  /** The limits it counts against (the development hint names them). */
  get limits(): RateLimits {
    return this.#limits;
  }

  constructor(db: DB, clock: Clock, limits: RateLimits = DEFAULT_RATE_LIMITS) {
    this.#db = db;
    this.#clock = clock;
    this.#limits = limits;
    const newest = db.prepare<[string, number, number], { at: number }>(
      "SELECT at FROM signin_rate_events WHERE bucket = ? AND at > ? ORDER BY at DESC LIMIT 1 OFFSET ?",
    );
    const record = db.prepare("INSERT INTO signin_rate_events (bucket, at) VALUES (?, ?)");
    this.#log = {
      newest: (bucket, since, nth) => newest.get(bucket, since, nth - 1)?.at,
      record: (bucket, at) => void record.run(bucket, at),
    };
    this.#sweep = db.prepare("DELETE FROM signin_rate_events WHERE rowid IN (SELECT rowid FROM signin_rate_events WHERE at <= ? LIMIT ?)");
  }

  /**
   * Checks a send to `address` from `ip` against every limit and, when
   * allowed, records it, atomically. `returning` (the address has signed
   * in before) exempts it from the global budget.
   */
  Take(address: string, ip: string | undefined, returning: boolean): RateResult {
    const now = this.#clock.now().getTime();
    const checks: [string, RateWindow, RateLimitName][] = [[`addr:${addressBucket(address)}`, this.#limits.PerAddress, "address"]];
    // Without a peer address (a unix socket and no ClientIP) there is no per-client
    // bucket: one shared "unknown" bucket would let any client lock everyone out.
    if (ip !== undefined && ip !== "") checks.push([`ip:${clientKey(ip)}`, this.#limits.PerIP, "client"]);
    // OWASP ASVS 5.0 §6.1.1: anti-automation that an attacker cannot turn into a lockout of known accounts.
    if (!returning) checks.push(["global", this.#limits.Global, "global"]);
    return immediately(this.#db, (): RateResult => {
      for (const [bucket, w, limit] of checks) {
        const retryAfter = limitWait(this.#log, bucket, w, now);
        if (retryAfter > 0) return { ok: false, limit, retryAfter };
      }
      for (const [bucket] of checks) this.#log.record(bucket, now);
      return { ok: true };
    });
  }

  /**
   * Reports whether the browser of `bindingHash` may no longer type codes
   * for `address`: the address has collected CODE_MISS_LIMIT wrong codes
   * within its window and this browser typed at least one of them.
   */
  codeLocked(address: string, bindingHash: string): boolean {
    const since = this.#clock.now().getTime() - CODE_MISS_LIMIT.Window;
    const missed = (bucket: string, n: number): boolean => this.#log.newest(bucket, since, n) !== undefined;
    return missed(codeBucket(address), CODE_MISS_LIMIT.Max) && missed(codeBucket(address, bindingHash), 1);
  }

  /** Records one wrong code typed for `address` by the browser of `bindingHash`. */
  recordCodeMiss(address: string, bindingHash: string): void {
    const now = this.#clock.now().getTime();
    this.#log.record(codeBucket(address), now);
    this.#log.record(codeBucket(address, bindingHash), now);
  }

  /** Deletes at most `limit` events older than the longest window (one step of `sweepInSteps`); returns how many. */
  Sweep(now: Date, limit: number = SWEEP_STEP): number {
    const longest = Math.max(this.#limits.PerAddress.Window, this.#limits.PerIP.Window, this.#limits.Global.Window, CODE_MISS_LIMIT.Window);
    return this.#sweep.run(now.getTime() - longest, limit).changes;
  }
}
