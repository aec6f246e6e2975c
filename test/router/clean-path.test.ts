import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { posix } from "node:path";
import { cleanPath, isCleanPath } from "../../lib/router/clean-path.ts";

// A deterministic generator (xorshift32), so a failure reproduces.
function rng(seed: number): () => number {
  let x = seed;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 0x100000000;
  };
}

const PIECES = ["/", "/", "/", ".", "..", "a", "b", "%2e", ".a", "..b", "...", "x.y"];

function randomPath(next: () => number): string {
  let p = "/";
  const n = Math.floor(next() * 10);
  for (let k = 0; k < n; k++) p += PIECES[Math.floor(next() * PIECES.length)];
  return p;
}

describe("cleanPath()", () => {
  const table: { input: string; want: string }[] = [
    { input: "", want: "/" },
    { input: "/", want: "/" },
    { input: "//", want: "/" },
    { input: "/a//b", want: "/a/b" },
    { input: "/a/./b/", want: "/a/b/" },
    { input: "/a/../b", want: "/b" },
    { input: "/../../a", want: "/a" },
    { input: "/a/b/..", want: "/a" },
    { input: "/a/b/../", want: "/a/" },
    { input: "/a/.", want: "/a" },
    { input: "/%2e%2e/a", want: "/%2e%2e/a" },
  ];
  for (const row of table) {
    it(`cleans ${JSON.stringify(row.input)}`, () => assert.equal(cleanPath(row.input), row.want));
  }

  it("agrees with node:path posix.normalize on random rooted paths", () => {
    const next = rng(0x5eed1234);
    for (let k = 0; k < 5000; k++) {
      const p = randomPath(next);
      assert.equal(cleanPath(p), posix.normalize(p), `input ${JSON.stringify(p)}`);
    }
  });
});

describe("isCleanPath()", () => {
  it("reports true exactly when cleaning changes nothing, on random rooted paths", () => {
    const next = rng(0xc0ffee);
    for (let k = 0; k < 5000; k++) {
      const p = randomPath(next);
      assert.equal(isCleanPath(p), cleanPath(p) === p, `input ${JSON.stringify(p)}`);
    }
  });
  it("refuses relative paths", () => {
    assert.equal(isCleanPath("a/b"), false);
    assert.equal(isCleanPath(""), false);
  });
});
