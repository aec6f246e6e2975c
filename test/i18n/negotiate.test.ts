import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { negotiate, parseAcceptLanguage } from "../../lib/i18n/negotiate.ts";

const CODES = ["en", "fr", "pt-BR", "zh-CN", "de"];

describe("negotiate()", () => {
  const rows: { name: string; header: string | undefined; codes?: string[]; want: string }[] = [
    { name: "absent header gives the default", header: undefined, want: "en" },
    { name: "empty header gives the default", header: "", want: "en" },
    { name: "exact match", header: "fr", want: "fr" },
    { name: "case-insensitive match returns the declared spelling", header: "PT-br", want: "pt-BR" },
    { name: "q-values order the ranges", header: "de;q=0.4, fr;q=0.9", want: "fr" },
    { name: "equal q keeps header order", header: "de, fr", want: "de" },
    { name: "q=0 excludes a range", header: "fr;q=0, de;q=0.1", want: "de" },
    { name: "truncation: fr-CA finds fr", header: "fr-CA", want: "fr" },
    { name: "truncation: de-AT-1996 finds de", header: "de-AT-1996", want: "de" },
    { name: "region fallback: pt finds pt-BR", header: "pt", want: "pt-BR" },
    { name: "region fallback: pt-PT finds pt-BR", header: "pt-PT", want: "pt-BR" },
    { name: "pt prefers pt-BR over a lighter en", header: "pt, en;q=0.5", want: "pt-BR" },
    { name: "exact pt-BR wins over pt", header: "pt-BR", codes: ["en", "pt", "pt-BR"], want: "pt-BR" },
    { name: "pt-BR truncates to a declared pt", header: "pt-BR", codes: ["en", "pt"], want: "pt" },
    { name: "zh-TW (Traditional) does not take zh-CN", header: "zh-TW", want: "en" },
    { name: "zh-Hans finds zh-CN", header: "zh-Hans", want: "zh-CN" },
    { name: "no match gives the default", header: "ja, ko", want: "en" },
    { name: "wildcard alone gives the default", header: "*", want: "en" },
    { name: "wildcard is skipped when ranges follow", header: "*, fr;q=0.5", want: "fr" },
    { name: "wildcard with higher q still skipped", header: "*;q=1, de;q=0.2", want: "de" },
    { name: "default is returned even when not first", header: "xx", codes: ["fr", "en"], want: "en" },
    { name: "malformed q skips the entry", header: "fr;q=2, de", want: "de" },
    { name: "malformed q text skips the entry", header: "fr;q=abc, de;q=0.5", want: "de" },
    { name: "garbage ranges are skipped", header: "@@@, ;;;, =, fr", want: "fr" },
    { name: "too long subtags are skipped", header: "abcdefghij, de", want: "de" },
    { name: "only garbage gives the default", header: ",,,;q=;", want: "en" },
    { name: "whitespace is tolerated", header: "  fr ; q=0.8 ,de ;q=0.9", want: "de" },
  ];
  for (const row of rows) {
    it(row.name, () => {
      assert.equal(negotiate(row.header, row.codes ?? CODES, "en"), row.want);
    });
  }

  it("never throws on hostile headers", () => {
    const hostile = ["\u0000", "x".repeat(100_000), "a-".repeat(5000), `${"fr;q=0.5,".repeat(10_000)}`, "🙂;q=1", "-", "a--b", "i-klingon"];
    for (const header of hostile) assert.equal(typeof negotiate(header, CODES, "en"), "string");
  });
});

describe("parseAcceptLanguage()", () => {
  it("sorts by weight and drops zero and malformed weights", () => {
    assert.deepEqual(parseAcceptLanguage("da, en-GB;q=0.8, en;q=0.7, fr;q=0, x;q=1.5"), [
      { range: "da", q: 1 },
      { range: "en-GB", q: 0.8 },
      { range: "en", q: 0.7 },
    ]);
  });

  it("keeps at most 32 ranges", () => {
    const header = Array.from({ length: 100 }, (_, i) => `l${String.fromCharCode(97 + (i % 26))}`).join(",");
    assert.equal(parseAcceptLanguage(header).length, 32);
  });
});
