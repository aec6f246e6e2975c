import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { NewRef, type RandomReader } from "../../lib/http/index.ts";

const REF = /^[a-z2-7]{6}$/;

function fixed(bytes: number[]): RandomReader & { asked: number[] } {
  const asked: number[] = [];
  return {
    asked,
    read: (n) => {
      asked.push(n);
      return Uint8Array.from(bytes);
    },
  };
}

describe("NewRef()", () => {
  test("returns 6 lowercase base32 characters, never 0, 1, 8 or 9", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 10_000; i++) {
      const ref = NewRef();
      assert.match(ref, REF);
      seen.add(ref);
    }
    // 30 random bits: 10k draws collide rarely; a constant or a short cycle would not pass.
    assert.ok(seen.size > 9_900, `only ${seen.size} distinct refs`);
  });

  const known: { bytes: number[]; want: string }[] = [
    { bytes: [0, 0, 0, 0], want: "aaaaaa" },
    { bytes: [255, 255, 255, 255], want: "777777" },
    { bytes: [0x80, 0, 0, 0], want: "qaaaaa" },
    // The two lowest bits are not used: 30 of the 32.
    { bytes: [0, 0, 0, 3], want: "aaaaaa" },
    { bytes: [0, 0, 0, 4], want: "aaaaab" },
    { bytes: [0x08, 0x42, 0x10, 0x84], want: "bbbbbb" },
  ];
  for (const { bytes, want } of known) {
    test(`maps bytes [${bytes.join(", ")}] to ${want}`, () => {
      const random = fixed(bytes);
      assert.equal(NewRef(random), want);
      assert.deepEqual(random.asked, [4]);
    });
  }
});
