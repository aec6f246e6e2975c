/*
 * How often one agent token may call tools, on every transport: `Burst` calls at once, then `PerMinute` a minute, paced
 * by latch's one limiter (lib/internal/limiter.ts). In memory, not SQLite: a refused call must cost nothing, and a
 * restart forgets at most one burst per token (README, "Rate limit").
 */
import { HTTPError, systemClock, type Clock } from "../http/index.ts";
import { countProblem, MemoryLog, takeLimit, type Limit } from "../internal/index.ts";
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
  readonly #limit: Limit;
  readonly #log = new MemoryLog();

  /**
   * Returns a limiter of `rate` (default 60 a minute, 20 at once). Throws `HTTPError` `ERR_HTTP_INVALID_OPTIONS` naming
   * the field when `PerMinute` or `Burst` is not a whole number of at least 1.
   */
  constructor(rate: ToolCallRate = DEFAULT_TOOL_CALL_RATE, options: ToolCallLimiterOptions = {}) {
    for (const field of ["PerMinute", "Burst"] as const) {
      const problem = countProblem(rate[field]);
      if (problem !== undefined) throw new HTTPError("ERR_HTTP_INVALID_OPTIONS", `tool call rate: ${field} ${problem}`);
    }
    this.#clock = options.Clock ?? systemClock;
    this.#limit = { Max: rate.Burst, Window: 60_000 / rate.PerMinute, Paced: true };
  }

  /** Takes one call from the bucket of token `tokenID`, or refuses it with the seconds to wait (at least 1). */
  take(tokenID: string): RateVerdict {
    const retryAfter = takeLimit(this.#log, tokenID, this.#limit, this.#clock.now().getTime());
    return retryAfter === 0 ? { ok: true } : { ok: false, retryAfter };
  }

  /** How many tokens have a bucket that is not full. */
  get tracked(): number {
    return this.#log.size;
  }
}

const shared = new WeakMap<AgentTokens, ToolCallLimiter>();

/**
 * Returns `given`, or the default limiter of the tokens `tokens` verifies: one per token store, so the tools endpoint
 * and the MCP endpoint of one application count a token's calls together unless told otherwise.
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
