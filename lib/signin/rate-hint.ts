/*
 * The development hint of a refused sign-in (issue 42: the limit bites during development with no hint). latch knows
 * it is in development when no `Mailer` is configured: the contract's development-only logging sender is sending
 * (spec.md §2.6), so the developer reads links in the log. There the refusal names its limit and when it lets the
 * next link through; with a Mailer, the contract's answer is unchanged (`?err=rate`, `{"error":"rate"}`), so a
 * stranger learns nothing of the limits (OWASP ASVS 5.0 §6.1.1).
 */
import type { RateLimitName, RateLimits } from "./rate.ts";

/** The `Config.RateLimits` field of each limit a refusal names. */
const LIMIT_FIELD: Readonly<Record<RateLimitName, keyof RateLimits>> = { address: "PerAddress", client: "PerIP", global: "Global" };

/** The refusal's limit and reset, as development shows them. */
export interface RateHint {
  limit: keyof RateLimits;
  retryAfter: number;
  message: string;
}

/** Words the refusal by `limit`, which lets the next link through in `retryAfter` whole seconds after `now`. */
export function rateHint(limits: RateLimits, limit: RateLimitName, retryAfter: number, now: Date): RateHint {
  const field = LIMIT_FIELD[limit];
  const { Max, Window } = limits[field];
  const resets = new Date(now.getTime() + retryAfter * 1000).toISOString();
  return {
    limit: field,
    retryAfter,
    message:
      `development: sign-in limit RateLimits.${field} (${Max} links per ${Window / 60000} minutes) reached; ` +
      `it resets in ${retryAfter} s, at ${resets}. Shown because mail goes to the log (development); set signin Config.RateLimits to change it.`,
  };
}
