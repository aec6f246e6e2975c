import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { encodeComment, encodeEvent, encodeRetry } from "../../lib/internal/sse.ts";
import { SSEParser } from "../_support/sse.ts";

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);

function parseAll(chunks: string[]): SSEParser {
  const p = new SSEParser();
  for (const c of chunks) p.feed(bytes(c));
  p.end();
  return p;
}

describe("SSEParser (WHATWG HTML §9.2.5-9.2.6)", () => {
  const cases = [
    {
      name: "LF, CRLF and CR line endings",
      input: ["data: a\n\ndata: b\r\n\r\ndata: c\r\r"],
      want: ["message:a", "message:b", "message:c"],
    },
    { name: "a CRLF split across chunks", input: ["data: a\r", "\n\r", "\n"], want: ["message:a"] },
    { name: "multi-line data joined by LF", input: ["data: one\ndata:two\ndata\n\n"], want: ["message:one\ntwo\n"] },
    { name: "only one leading space dropped", input: ["event:  x\ndata:  y\n\n"], want: [" x: y"] },
    { name: "comments and unknown fields ignored", input: [": hi\nfoo: bar\ndata: z\n\n"], want: ["message:z"] },
    { name: "no data dispatches nothing", input: ["event: ping\n\n"], want: [] },
    { name: "leading BOM dropped", input: ["\uFEFFdata: x\n\n"], want: ["message:x"] },
    { name: "unfinished event discarded at end", input: ["data: x\n"], want: [] },
  ];
  for (const { name, input, want } of cases) {
    it(name, () => {
      assert.deepEqual(
        parseAll(input).events.map((e) => `${e.type}:${e.data}`),
        want,
      );
    });
  }

  it("keeps retry only for ASCII digits and ids without NUL", () => {
    const p = parseAll(["retry: 1500\nretry: 2x\nid: 7\ndata: a\n\nid: b\0c\ndata: b\n\n"]);
    assert.equal(p.retry, 1500);
    assert.deepEqual(
      p.events.map((e) => e.lastEventId),
      ["7", "7"],
    );
  });
});

describe("encodeEvent()", () => {
  it("splits data on every line ending so it round-trips", () => {
    const data = "a\r\nb\rc\nd";
    const p = parseAll([encodeEvent({ event: "update", data, id: "1" })]);
    assert.deepEqual(p.events, [{ type: "update", data: "a\nb\nc\nd", lastEventId: "1" }]);
  });

  for (const bad of ["a\nb", "a\rb", "a\0"]) {
    it(`refuses ${JSON.stringify(bad)} as event name or id`, () => {
      assert.throws(() => encodeEvent({ event: bad, data: "x" }), TypeError);
      assert.throws(() => encodeEvent({ id: bad, data: "x" }), TypeError);
    });
  }
});

describe("encodeComment()", () => {
  it("writes `: ping` that readers ignore", () => {
    assert.equal(encodeComment("ping"), ": ping\n\n");
    const p = parseAll([encodeComment("ping"), encodeRetry(3000)]);
    assert.deepEqual(p.events, []);
    assert.deepEqual(p.comments, ["ping"]);
    assert.equal(p.retry, 3000);
    assert.throws(() => encodeRetry(-1), TypeError);
  });
});
