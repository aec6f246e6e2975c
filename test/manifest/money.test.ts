import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { LIST_PAGE_SIZE } from "../../lib/manifest/list.ts";
import { mergeField, mergeLines, MERGE_CELLS } from "../../lib/manifest/merge.ts";
import { formatMinor, formatMoneyInput, MONEY_MAX_MINOR, parseMoney } from "../../lib/manifest/money.ts";
import { DEFAULT_CURRENCY, TEXT_MAX_LENGTH, TEXTAREA_MAX_LENGTH } from "../../lib/manifest/values.ts";

describe("parseMoney()", () => {
  const rows = [
    { text: "12.34", locale: "en", currency: "USD", want: { ok: true, minor: 1234 } },
    { text: "12,34", locale: "de", currency: "EUR", want: { ok: true, minor: 1234 } },
    { text: "1.234,56", locale: "de", currency: "EUR", want: { ok: true, minor: 123456 } },
    { text: "1,234.5", locale: "en", currency: "USD", want: { ok: true, minor: 123450 } },
    { text: "1 234,56", locale: "fr", currency: "EUR", want: { ok: true, minor: 123456 } },
    { text: "-3", locale: "en", currency: "USD", want: { ok: true, minor: -300 } },
    { text: "٣٫٥", locale: "ar", currency: "USD", want: { ok: true, minor: 350 } },
    { text: "1200", locale: "ja", currency: "JPY", want: { ok: true, minor: 1200 } },
    { text: "12.345", locale: "en", currency: "USD", want: { ok: false, reason: "precision" } },
    { text: "12.5", locale: "ja", currency: "JPY", want: { ok: false, reason: "precision" } },
    { text: "12.34", locale: "de", currency: "EUR", want: { ok: false, reason: "invalid" } },
    { text: "twelve", locale: "en", currency: "USD", want: { ok: false, reason: "invalid" } },
    { text: "1e3", locale: "en", currency: "USD", want: { ok: false, reason: "invalid" } },
    { text: "", locale: "en", currency: "USD", want: { ok: false, reason: "invalid" } },
    { text: "99999999999999999", locale: "en", currency: "USD", want: { ok: false, reason: "range" } },
  ] as const;
  for (const { text, locale, currency, want } of rows) {
    it(`reads ${JSON.stringify(text)} in ${locale} (${currency})`, () => assert.deepEqual(parseMoney(text, locale, currency), want));
  }
  it("formats minor units back exactly, as the locale writes them", () => {
    assert.equal(formatMinor(123456, "USD"), "1234.56");
    assert.equal(formatMinor(-5, "USD"), "-0.05");
    assert.equal(formatMinor(MONEY_MAX_MINOR, "USD"), "9999999999999.99");
    assert.equal(formatMoneyInput(123456, "de", "EUR"), "1.234,56");
    assert.equal(formatMoneyInput(123456, "en", "EUR"), "1,234.56");
  });
  it("pins the limits", () => {
    assert.equal(MONEY_MAX_MINOR, 999_999_999_999_999);
    assert.deepEqual([TEXT_MAX_LENGTH, TEXTAREA_MAX_LENGTH, LIST_PAGE_SIZE, DEFAULT_CURRENCY], [200, 2000, 20, "USD"]);
  });
});

describe("mergeLines()", () => {
  it("keeps edits of different lines from both sides, adjacent ones too", () => {
    assert.equal(mergeLines("a\nb\nc\nd", "A\nb\nc\nd", "a\nb\nc\nD"), "A\nb\nc\nD");
    assert.equal(mergeLines("a\nb\nc", "A\nb\nc", "a\nB\nc"), "A\nB\nc");
    assert.equal(mergeLines("a\nb", "x\na\nb", "a\nb\ny"), "x\na\nb\ny");
  });
  it("refuses overlapping edits", () => {
    assert.equal(mergeLines("a\nb\nc", "a\nX\nc", "a\nY\nc"), undefined);
  });
  it("merges texts up to MERGE_CELLS line pairs and declines past it (a conflict, never slow)", () => {
    assert.equal(MERGE_CELLS, 250_000);
    // n lines edited at the first line on one side and the last on the other: n·n LCS cells.
    const edits = (n: number): [string, string, string, string] => {
      const base = Array.from({ length: n }, (_, i) => `line ${i}`);
      const first = ["FIRST", ...base.slice(1)];
      const last = [...base.slice(0, -1), "LAST"];
      return [base.join("\n"), first.join("\n"), last.join("\n"), ["FIRST", ...base.slice(1, -1), "LAST"].join("\n")];
    };
    const [base, mine, theirs, merged] = edits(Math.sqrt(MERGE_CELLS));
    assert.equal(mergeLines(base, mine, theirs), merged);
    const [bigger, mine2, theirs2] = edits(Math.sqrt(MERGE_CELLS) + 1);
    assert.equal(mergeLines(bigger, mine2, theirs2), undefined);
  });
});

describe("mergeField()", () => {
  it("merges one-sided edits and conflicts on two different Text or Money values", () => {
    assert.deepEqual(mergeField("text", "a", "a", "b"), { ok: true, value: "b" });
    assert.deepEqual(mergeField("text", "a", "c", "a"), { ok: true, value: "c" });
    assert.deepEqual(mergeField("text", "a", "b", "c"), { ok: false });
    assert.deepEqual(mergeField("money", 100, 200, 300), { ok: false });
    assert.deepEqual(mergeField("money", 100, 200, 200), { ok: true, value: 200 });
  });
});
