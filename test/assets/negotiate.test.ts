import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { chooseCoding, matchesIfNoneMatch, parseAcceptEncoding, type Coding } from "../../lib/assets/negotiate.ts";

const ALL = new Set<Coding>(["br", "gzip", "identity"]);
const NO_BR = new Set<Coding>(["gzip", "identity"]);
const PLAIN = new Set<Coding>(["identity"]);

describe("chooseCoding()", () => {
  const cases: { header: string | undefined; available: ReadonlySet<Coding>; want: Coding | undefined }[] = [
    { header: undefined, available: ALL, want: "identity" },
    { header: "", available: ALL, want: "identity" },
    { header: "gzip, deflate, br, zstd", available: ALL, want: "br" },
    { header: "br", available: ALL, want: "br" },
    { header: "gzip", available: ALL, want: "gzip" },
    { header: "x-gzip", available: ALL, want: "gzip" },
    { header: "GZIP", available: ALL, want: "gzip" },
    { header: "gzip, br", available: NO_BR, want: "gzip" },
    { header: "br;q=0.5, gzip;q=0.9", available: ALL, want: "gzip" },
    { header: "br;q=0, gzip", available: ALL, want: "gzip" },
    { header: "br;q=0, gzip;q=0", available: ALL, want: "identity" },
    { header: "*", available: ALL, want: "br" },
    { header: "*;q=0.5, br;q=0", available: ALL, want: "gzip" },
    { header: "deflate", available: ALL, want: "identity" },
    { header: "identity;q=1, br;q=0.5", available: ALL, want: "identity" },
    { header: "identity;q=0", available: PLAIN, want: undefined },
    { header: "*;q=0", available: PLAIN, want: undefined },
    { header: "*;q=0", available: ALL, want: undefined },
    { header: "identity;q=0, gzip", available: ALL, want: "gzip" },
    { header: "br", available: PLAIN, want: "identity" },
    { header: "br;q=bogus, gzip", available: ALL, want: "gzip" },
    { header: "br;q=1.5, gzip", available: ALL, want: "gzip" },
    { header: "br;q=0.001, gzip;q=0.001", available: ALL, want: "br" },
  ];
  for (const { header, available, want } of cases) {
    it(`picks ${String(want)} for ${JSON.stringify(header)} from ${[...available].join("+")}`, () => {
      assert.equal(chooseCoding(header, available), want);
    });
  }
});

describe("parseAcceptEncoding()", () => {
  it("reads names and q-values, skipping empty members", () => {
    const got = parseAcceptEncoding(" gzip;q=0.8 , ,br ; q=1.000,identity;q=0");
    assert.deepEqual(
      [...got],
      [
        ["gzip", 0.8],
        ["br", 1],
        ["identity", 0],
      ],
    );
  });
});

describe("matchesIfNoneMatch()", () => {
  const etag = '"abc123def0"';
  const cases: { header: string | undefined; want: boolean }[] = [
    { header: undefined, want: false },
    { header: '"abc123def0"', want: true },
    { header: 'W/"abc123def0"', want: true },
    { header: '"zzz", "abc123def0"', want: true },
    { header: '"zzz","yyy"', want: false },
    { header: "*", want: true },
    { header: " * ", want: true },
    { header: "abc123def0", want: false },
    { header: "", want: false },
  ];
  for (const { header, want } of cases) {
    it(`reports ${String(want)} for ${JSON.stringify(header)}`, () => assert.equal(matchesIfNoneMatch(header, etag), want));
  }
});
