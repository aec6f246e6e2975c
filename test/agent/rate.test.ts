/*
 * The per-token bucket of tool calls (lib/agent/rate.ts) on the fake
 * clock: its default, refusals with the wait, refilling, tokens apart,
 * and memory that follows the tokens calling, not the calls.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { DEFAULT_TOOL_CALL_RATE, ToolCallLimiter } from "../../lib/agent/rate.ts";
import { isLatchError } from "../../lib/http/index.ts";
import { FakeClock } from "../_support/clock.ts";

function takeMany(limiter: ToolCallLimiter, token: string, n: number): boolean[] {
  return Array.from({ length: n }, () => limiter.take(token).ok);
}

describe("ToolCallLimiter", () => {
  it("allows 60 calls a minute per token, 20 at once, by default", () => {
    assert.deepEqual({ ...DEFAULT_TOOL_CALL_RATE }, { PerMinute: 60, Burst: 20 });
    const clock = new FakeClock();
    const limiter = new ToolCallLimiter(undefined, { Clock: clock });
    assert.deepEqual(takeMany(limiter, "t1", 20), Array(20).fill(true));
    assert.deepEqual(limiter.take("t1"), { ok: false, retryAfter: 1 }, "the 21st call waits one second, a 60th of a minute");
    clock.advance(999);
    assert.deepEqual(limiter.take("t1"), { ok: false, retryAfter: 1 }, "a wait under a second is still said as 1");
    clock.advance(1);
    assert.deepEqual(limiter.take("t1"), { ok: true }, "one call back after one second");
    assert.equal(limiter.take("t1").ok, false);
    clock.advance(60_000);
    assert.deepEqual(takeMany(limiter, "t1", 21), [...Array(20).fill(true), false], "a quiet minute refills the burst, never more");
    clock.advance(60_000);
    let allowed = 0;
    for (let second = 0; second < 60; second++, clock.advance(1000)) allowed += takeMany(limiter, "t1", 5).filter(Boolean).length;
    assert.equal(allowed, 20 + 59, "a minute of trying: the burst, then one a second");
  });

  it("says the whole seconds until the next call when the rate is slower", () => {
    const clock = new FakeClock();
    const limiter = new ToolCallLimiter({ PerMinute: 6, Burst: 2 }, { Clock: clock });
    assert.deepEqual(takeMany(limiter, "t1", 2), [true, true]);
    assert.deepEqual(limiter.take("t1"), { ok: false, retryAfter: 10 });
    clock.advance(2500);
    assert.deepEqual(limiter.take("t1"), { ok: false, retryAfter: 8 }, "7.5 s left, rounded up");
    clock.advance(7500);
    assert.equal(limiter.take("t1").ok, true);
  });

  it("keeps each token's bucket apart", () => {
    const limiter = new ToolCallLimiter(undefined, { Clock: new FakeClock() });
    takeMany(limiter, "flood", 100);
    assert.equal(limiter.take("flood").ok, false);
    assert.deepEqual(takeMany(limiter, "quiet", 20), Array(20).fill(true), "another token keeps its whole burst");
  });

  it("forgets the buckets that are full again, so memory follows the tokens calling", () => {
    const clock = new FakeClock();
    const limiter = new ToolCallLimiter(undefined, { Clock: clock });
    for (let i = 0; i < 1000; i++) limiter.take(`token-${i}`);
    assert.equal(limiter.tracked, 1000);
    clock.advance(1000);
    for (let i = 0; i < 1000; i++) limiter.take(`later-${i}`);
    assert.ok(limiter.tracked <= 1001, `the first thousand, full again, are dropped (${limiter.tracked} kept)`);
  });

  it("refuses a rate that is not whole numbers of at least 1, naming the field", () => {
    for (const [rate, field] of [
      [{ PerMinute: 0, Burst: 20 }, "PerMinute"],
      [{ PerMinute: 60, Burst: 1.5 }, "Burst"],
      [{ PerMinute: Infinity, Burst: 20 }, "PerMinute"],
    ] as const) {
      assert.throws(
        () => new ToolCallLimiter(rate),
        (err: unknown) => isLatchError(err) && err.code === "ERR_HTTP_INVALID_OPTIONS" && err.message.includes(`tool call rate: ${field} `),
      );
    }
  });
});
