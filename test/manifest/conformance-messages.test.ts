/*
 * What a failing conformance case says (issue 42, 1): the case, the resource, the request and its field(s), and what
 * the server answered (a 422's field errors as the page shows them, not the page's first bytes); a reference the suite
 * cannot satisfy names the field, the chain and why. The suite runs on the broken applications of
 * conformance-broken.ts in a `node --test` of its own; this reads its report.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";

const BROKEN = fileURLToPath(new URL("./conformance-broken.js", import.meta.url));

// The report of the suite on `scenario`'s application: the tap reporter, each failure's message on its error line.
function report(scenario: string): string {
  // Without NODE_TEST_CONTEXT, which would make the child report to this runner rather than print its own report.
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  const run = spawnSync(process.execPath, ["--test", "--test-reporter=tap", BROKEN], {
    encoding: "utf8",
    env: { ...env, CONFORMANCE_BROKEN: scenario },
  });
  assert.notEqual(run.status, 0, "the suite fails");
  return run.stdout;
}

describe("a failing conformance case", () => {
  it("names the case, the resource, the request with its fields, and the field errors the server answered", () => {
    const out = report("drift");
    assert.match(
      out,
      /resource notes, case "isolates owners: [^"]+": create: POST \/notes with title="isolation text", due="2026-12-31" answered 422 with field errors: title: "Use at most 3 characters\.", expected 303/,
    );
    assert.match(
      out,
      /resource notes, case "accepts only declared fields[^"]+": create: POST \/notes with title="version text", due="2026-12-31" answered 422 with field errors: title: "Use at most 3 characters\.", expected 303/,
    );
    assert.doesNotMatch(out, /<!doctype|<title>/i, "no page's first bytes");
  });

  it("names the field whose reference it cannot satisfy, and why", () => {
    assert.match(
      report("apart"),
      /resource loans, case "isolates owners: [^"]+": the run did not start: the record loans\.equipment needs in equipment \(loans\.equipment → equipment\): no tool equipment_create in ConformanceApp\.tools/,
    );
  });

  it("refuses references that go round, naming the cycle, instead of looping", () => {
    assert.match(
      report("cycle"),
      /resource loops, case "[^"]+": the run did not start: .*references form a cycle, loops\.start → x\.to → y\.to → x/,
    );
  });

  it("quotes at most 240 characters of what the server said", () => {
    // A 300-character plain-text 500: "error: " and 233 more, then the mark of a cut.
    assert.match(report("unreadable"), /reading its form, GET \/z\/new answered 500 "error: z{233}…"/);
  });
});
