import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { equalSecret } from "../../lib/internal/index.ts";

describe("equalSecret()", () => {
  test("agrees with === over random strings, including unequal lengths and non-ASCII", () => {
    const alphabet = ["a", "b", "é", "世", "0", ""];
    for (let i = 0; i < 3000; i++) {
      const pick = (seed: number): string =>
        Array.from({ length: seed % 5 }, (_, k) => alphabet[(seed * 31 + k * 7) % alphabet.length] ?? "").join("");
      const a = pick(i);
      const b = i % 3 === 0 ? a : pick(i * 17 + 3);
      assert.equal(equalSecret(a, b), a === b, `${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
    }
  });
});
