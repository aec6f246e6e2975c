import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { isLocalPath } from "../../lib/http/index.ts";
import { MAX_TIMER_MS, countProblem, durationProblem, positiveProblem } from "../../lib/internal/index.ts";
import { isJobsError } from "../../lib/jobs/errors.ts";
import { Registry } from "../../lib/jobs/index.ts";
import { discardLogger } from "../../lib/http/index.ts";

describe("option checks", () => {
  test("MAX_TIMER_MS is the largest delay Node's timers honour (2^31 - 1 ms)", () => {
    assert.equal(MAX_TIMER_MS, 2_147_483_647);
  });

  const durations: [unknown, boolean][] = [
    [1, true],
    [MAX_TIMER_MS, true],
    [0, false],
    [-1, false],
    [1.5, false],
    [MAX_TIMER_MS + 1, false],
    [Infinity, false],
    [NaN, false],
    ["5", false],
    [undefined, false],
  ];
  for (const [value, ok] of durations) {
    test(`durationProblem(${String(value)}) ${ok ? "accepts" : "refuses"} it`, () => {
      assert.equal(durationProblem(value) === undefined, ok);
    });
  }

  test("durationProblem explains Infinity instead of letting Node fire after 1 ms", () => {
    assert.match(durationProblem(Infinity) ?? "", /at most 2147483647 ms/);
  });

  const counts: [unknown, boolean][] = [
    [1, true],
    [4, true],
    [0, false],
    [2.5, false],
    [Infinity, false],
    [NaN, false],
  ];
  for (const [value, ok] of counts) {
    test(`countProblem(${String(value)}) ${ok ? "accepts" : "refuses"} it`, () => assert.equal(countProblem(value) === undefined, ok));
  }

  const quantities: [unknown, boolean][] = [
    [0.5, true],
    [2, true],
    [0, false],
    [Infinity, false],
    [NaN, false],
    [-2, false],
  ];
  for (const [value, ok] of quantities) {
    test(`positiveProblem(${String(value)}) ${ok ? "accepts" : "refuses"} it`, () =>
      assert.equal(positiveProblem(value) === undefined, ok));
  }

  test("a registry with maxRuntime: Infinity is a configuration error, not a job failing after 1 ms", () => {
    assert.throws(
      () => new Registry(discardLogger, { maxRuntime: Infinity }),
      (err: unknown) => isJobsError(err) && err.code === "ERR_JOBS_INVALID_CONFIG" && /maxRuntime must be at most/.test(err.message),
    );
  });
});

describe("isLocalPath()", () => {
  const rows: [string, boolean][] = [
    ["/", true],
    ["/a/b?c=d#e", true],
    ["/%2F%2Fevil", true],
    ["", false],
    ["a/b", false],
    ["//evil.example", false],
    ["/\\evil.example", false],
    ["/a\\b", false],
    ["/\t/evil", false],
    ["/a\nb", false],
    ["/caf\u00e9", false],
    ["/a b", false],
    ["https://evil.example/", false],
    ["/" + "a".repeat(2047), true],
    ["/" + "a".repeat(2048), false],
  ];
  for (const [path, ok] of rows) {
    test(`${ok ? "accepts" : "refuses"} ${JSON.stringify(path.length > 40 ? `${path.slice(0, 12)}… (${path.length} chars)` : path)}`, () => {
      assert.equal(isLocalPath(path), ok);
    });
  }
});
