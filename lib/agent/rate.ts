/*
 * How often one agent token may call tools, on every transport: a token
 * bucket per token, holding `Burst` calls and refilled at `PerMinute` calls
 * a minute. A call takes one from its token's bucket; an empty bucket
 * refuses the call and says when the next one is back.
 *
 * The bucket is kept as one number per token, the time at which it is full
 * again (the "virtual scheduling" form of the bucket, GCRA): a call pushes
 * that time one interval (60 000 / PerMinute ms) further, and is allowed
 * while the time stays within `Burst` intervals of now. A token whose
 * bucket is full has no entry; entries are dropped once full again, so
 * memory follows the tokens calling in the last few seconds, never the
 * calls.
 *
 * In memory, not SQLite: the limit protects the server from one agent, so
 * it must cost nothing per refused call (a table would take a write, under
 * the flood it is there to stop), and a restart forgets at most one burst
 * per token. Sign-in limits are in SQLite because they guard secrets
 * against guessing, which a restart must not reset (lib/signin/rate.ts).
 */
import { HTTPError, systemClock, type Clock } from "../http/index.ts";
import { countProblem } from "../internal/index.ts";
import type { AgentTokens } from "./tokens.ts";

/** How many tool calls one token may make: `Burst` at once, then `PerMinute` a minute. */
export interface ToolCallRate {
  /** Calls a minute, sustained. @default 60 */
  PerMinute: number;
  /** Calls at once, after a quiet spell. @default 20 */
  Burst: number;
}

/** 60 calls a minute per token, 20 at once. */
export const DEFAULT_TOOL_CALL_RATE: Readonly<ToolCallRate> = Object.freeze({ PerMinute: 60, Burst: 20 });

/** A call taken from its token's bucket, or refused with the whole seconds until the next one is allowed. */
export type RateVerdict = { ok: true } | { ok: false; retryAfter: number };

/** Options of `ToolCallLimiter`. */
export interface ToolCallLimiterOptions {
  /** @default systemClock */
  Clock?: Clock;
}

/** The per-token bucket of tool calls that both agent transports take from. */
export class ToolCallLimiter {
  readonly #clock: Clock;
  /** Milliseconds between two calls at the sustained rate. */
  readonly #interval: number;
  /** How far ahead of now a bucket's "full at" may be after a call: `Burst` intervals. */
  readonly #depth: number;
  /** Each token's "full at" time (Unix ms); absent when full. */
  readonly #fullAt = new Map<string, number>();
  #pruneAbove = 0;

  /**
   * Returns a limiter of `rate` (default 60 a minute, 20 at once). Throws
   * `HTTPError` `ERR_HTTP_INVALID_OPTIONS` naming the field when `PerMinute`
   * or `Burst` is not a whole number of at least 1.
   */
  constructor(rate: ToolCallRate = DEFAULT_TOOL_CALL_RATE, options: ToolCallLimiterOptions = {}) {
    for (const field of ["PerMinute", "Burst"] as const) {
      const problem = countProblem(rate[field]);
      if (problem !== undefined) throw new HTTPError("ERR_HTTP_INVALID_OPTIONS", `tool call rate: ${field} ${problem}`);
    }
    this.#clock = options.Clock ?? systemClock;
    this.#interval = 60_000 / rate.PerMinute;
    this.#depth = rate.Burst * this.#interval;
  }

  /** Takes one call from the bucket of token `tokenID`, or refuses it with the seconds to wait (at least 1). */
  take(tokenID: string): RateVerdict {
    const now = this.#clock.now().getTime();
    const fullAt = Math.max(this.#fullAt.get(tokenID) ?? now, now) + this.#interval;
    if (fullAt - now > this.#depth) return { ok: false, retryAfter: Math.max(1, Math.ceil((fullAt - this.#depth - now) / 1000)) };
    this.#fullAt.set(tokenID, fullAt);
    if (this.#fullAt.size > this.#pruneAbove) this.#prune(now);
    return { ok: true };
  }

  /** How many tokens have a bucket that is not full. */
  get tracked(): number {
    return this.#fullAt.size;
  }

  // Drops the buckets full again by now (the same as no entry). Run whenever the map doubled since the last run: amortized O(1).
  #prune(now: number): void {
    for (const [id, fullAt] of this.#fullAt) if (fullAt <= now) this.#fullAt.delete(id);
    this.#pruneAbove = 2 * this.#fullAt.size;
  }
}

const shared = new WeakMap<AgentTokens, ToolCallLimiter>();

/**
 * Returns `given`, or the default limiter of the tokens `tokens` verifies:
 * one per token store, so the tools endpoint and the MCP endpoint of one
 * application count a token's calls together unless told otherwise.
 */
export function limiterFor(tokens: AgentTokens, given: ToolCallLimiter | undefined): ToolCallLimiter {
  if (given !== undefined) return given;
  let limiter = shared.get(tokens);
  if (limiter === undefined) {
    limiter = new ToolCallLimiter();
    shared.set(tokens, limiter);
  }
  return limiter;
}
