import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { comparePatterns, describeConflict, type Relationship } from "../../lib/router/compare.ts";
import { parsePattern } from "../../lib/router/pattern.ts";

const inverse: Record<Relationship, Relationship> = {
  equivalent: "equivalent",
  disjoint: "disjoint",
  overlaps: "overlaps",
  moreGeneral: "moreSpecific",
  moreSpecific: "moreGeneral",
};

describe("comparePatterns()", () => {
  const table: { a: string; b: string; want: Relationship }[] = [
    { a: "/a", b: "/a", want: "equivalent" },
    { a: "/a/{x}", b: "/a/{y}", want: "equivalent" },
    { a: "/a/b", b: "/a/{x}", want: "moreSpecific" },
    { a: "/a/", b: "/a/b", want: "moreGeneral" },
    { a: "/a/{x...}", b: "/a/", want: "equivalent" },
    { a: "/a/{$}", b: "/a/", want: "moreSpecific" },
    { a: "/a/{$}", b: "/a/{x}", want: "disjoint" },
    { a: "/a/{$}", b: "/a/b", want: "disjoint" },
    { a: "/{$}", b: "/", want: "moreSpecific" },
    { a: "/a/{x}/c", b: "/a/b/{y}", want: "overlaps" },
    { a: "/a", b: "/b", want: "disjoint" },
    { a: "/a/b", b: "/a", want: "disjoint" },
    { a: "GET /a", b: "/a", want: "moreSpecific" },
    { a: "GET /a", b: "POST /a", want: "disjoint" },
    { a: "HEAD /a", b: "GET /a", want: "moreSpecific" },
    { a: "GET /a/{x}", b: "/a/b", want: "overlaps" },
    { a: "GET /", b: "/index.html", want: "overlaps" },
    { a: "GET /a/b", b: "/a/{x}", want: "moreSpecific" },
  ];
  for (const row of table) {
    it(`${row.a} vs ${row.b}: ${row.want}, and the inverse the other way`, () => {
      const a = parsePattern(row.a);
      const b = parsePattern(row.b);
      assert.equal(comparePatterns(a, b), row.want);
      assert.equal(comparePatterns(b, a), inverse[row.want]);
    });
  }
});

describe("describeConflict()", () => {
  it("names equivalent patterns as matching the same requests", () => {
    assert.match(describeConflict(parsePattern("/a/{x}"), parsePattern("/a/{y}")) ?? "", /same requests/);
  });
  it("names overlapping patterns as neither more specific", () => {
    assert.match(describeConflict(parsePattern("/a/{x}/c"), parsePattern("/a/b/{y}")) ?? "", /neither is more specific/);
  });
  it("finds no conflict between different hosts or ordered patterns", () => {
    assert.equal(describeConflict(parsePattern("a.test/x"), parsePattern("b.test/x")), undefined);
    assert.equal(describeConflict(parsePattern("a.test/x"), parsePattern("/x")), undefined);
    assert.equal(describeConflict(parsePattern("/a/b"), parsePattern("/a/{x}")), undefined);
  });
});
