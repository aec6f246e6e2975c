/*
 * isStale, the one freshness test (sign-in, passkey, oauth): fresh means authenticated within maxAge (SPEC §4.2), and a
 * maxAge that is not a number fails closed, so a caller whose own check missed a NaN still asks for a fresh sign-in.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isStale } from "../../lib/internal/index.ts";

describe("isStale()", () => {
  const auth = new Date("2026-12-06T10:00:00Z");
  const at = (ms: number) => new Date(auth.getTime() + ms);

  it("is fresh up to maxAge inclusive, stale one millisecond later", () => {
    assert.equal(isStale(auth, at(300_000), 300_000), false);
    assert.equal(isStale(auth, at(300_001), 300_000), true);
  });

  it("is stale for a maxAge that is not a number (NaN from an unset variable), however recent the sign-in", () => {
    assert.equal(isStale(auth, at(0), Number.NaN), true);
    assert.equal(isStale(auth, at(2 * 60 * 60 * 1000), Number(undefined) * 1000), true);
  });
});
