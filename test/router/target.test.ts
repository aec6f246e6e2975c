import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { absolutePathStart, encodeLocation, isValidEscaping } from "../../lib/router/target.ts";

describe("absolutePathStart()", () => {
  const table: { input: string; want: number }[] = [
    { input: "http://h/p?q", want: 8 },
    { input: "https://h:8080/", want: 14 },
    { input: "http://h?q", want: 8 },
    { input: "http://h", want: 8 },
    { input: "*", want: -1 },
    { input: "h/p", want: -1 },
    { input: "://h/p", want: -1 },
    { input: "1http://h/p", want: -1 },
    { input: "ht tp://h/p", want: -1 },
  ];
  for (const row of table) {
    it(`finds ${row.want} in ${JSON.stringify(row.input)}`, () => assert.equal(absolutePathStart(row.input), row.want));
  }
});

describe("isValidEscaping()", () => {
  const table: { input: string; want: boolean }[] = [
    { input: "/a%20b", want: true },
    { input: "/a%2Fb", want: true },
    { input: "/%C3%A9", want: true },
    { input: "/a%", want: false },
    { input: "/a%2", want: false },
    { input: "/a%zz", want: false },
    { input: "/%FF", want: false },
    { input: "/%C3", want: false },
  ];
  for (const row of table) {
    it(`reports ${row.want} for ${JSON.stringify(row.input)}`, () => assert.equal(isValidEscaping(row.input), row.want));
  }
});

describe("encodeLocation()", () => {
  it("keeps safe characters and existing escapes", () => {
    assert.equal(encodeLocation("/a/b%20c?x=1&y=~"), "/a/b%20c?x=1&y=~");
  });
  it("encodes a backslash so /\\host cannot become //host", () => {
    assert.equal(encodeLocation("/\\evil.test/"), "/%5Cevil.test/");
  });
  it("encodes spaces, quotes, latin1 bytes and wide characters", () => {
    assert.equal(encodeLocation('/a b"<\u00e9'), "/a%20b%22%3C%E9");
    assert.equal(encodeLocation("/\u20ac"), "/%E2%82%AC");
  });
});
