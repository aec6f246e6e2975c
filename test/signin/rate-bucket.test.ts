import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { applySchema, mergeSchemas, OpenDB } from "../../lib/db/index.ts";
import * as session from "../../lib/session/index.ts";
import { Schema } from "../../lib/signin/index.ts";
import { RateLimiter } from "../../lib/signin/rate.ts";

describe("RateLimiter.Take()", () => {
  const limits = { PerAddress: { Max: 100, Window: 60_000 }, PerIP: { Max: 2, Window: 60_000 }, Global: { Max: 100, Window: 60_000 } };
  function limiter(): RateLimiter {
    const db = OpenDB(":memory:");
    applySchema(db, mergeSchemas(session.Schema, Schema));
    return new RateLimiter(db, { now: () => new Date(0) }, limits);
  }

  it("limits one IPv6 /64 as one client", () => {
    const rate = limiter();
    assert.equal(rate.Take("a@example.com", "2001:db8:1:2::1", false).ok, true);
    assert.equal(rate.Take("b@example.com", "2001:db8:1:2::2", false).ok, true);
    assert.equal(rate.Take("c@example.com", "2001:db8:1:2:ffff::3", false).ok, false);
    assert.equal(rate.Take("d@example.com", "2001:db8:1:3::1", false).ok, true, "another /64 is another client");
  });

  it("applies no per-IP limit without a peer address (a unix socket), so no shared bucket locks everyone out", () => {
    const rate = limiter();
    for (const who of ["a", "b", "c", "d"]) assert.equal(rate.Take(`${who}@example.com`, undefined, false).ok, true);
  });
});
