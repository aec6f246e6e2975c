import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { foldChunks, formatAddressField, formatCustomHeader, formatDate, formatSubject } from "../../lib/mail/header.ts";
import { decodeWords, parseHeaders } from "../_support/mail-parse.ts";

function unfolded(field: string): string {
  return parseHeaders(field).values().next().value ?? "";
}

describe("formatDate()", () => {
  const rows = [
    { input: "2025-07-01T09:05:03Z", want: "Tue, 01 Jul 2025 09:05:03 +0000" },
    { input: "2000-02-29T23:59:59.999Z", want: "Tue, 29 Feb 2000 23:59:59 +0000" },
    { input: "1999-12-31T00:00:00Z", want: "Fri, 31 Dec 1999 00:00:00 +0000" },
  ];
  for (const { input, want } of rows) it(`formats ${input}`, () => assert.equal(formatDate(new Date(input)), want));
});

describe("formatSubject()", () => {
  const rows = [
    { input: "Sign in to Example", encoded: false },
    { input: "Привет, 世界 ✓", encoded: true },
    { input: "looks =?like?= a word", encoded: true },
    { input: "tab\there", encoded: true },
    { input: "a  b   c", encoded: false },
    { input: "", encoded: false },
    { input: "word ".repeat(60).trim(), encoded: false },
    { input: "x".repeat(1200), encoded: true },
    { input: "ü".repeat(200), encoded: true },
  ];
  for (const { input, encoded } of rows) {
    it(`round-trips ${JSON.stringify(input.slice(0, 24))} (${encoded ? "encoded" : "plain"})`, () => {
      const field = formatSubject(input);
      assert.equal(field.includes("=?UTF-8?B?"), encoded);
      for (const line of field.split("\r\n")) {
        assert.ok(line.length <= (encoded ? 76 : 78), `line too long: ${line.length}`);
        assert.ok(line.trim() !== "" || field === "Subject: ", "no whitespace-only line");
      }
      assert.equal(decodeWords(unfolded(field)), input);
    });
  }
  it("refuses CR and LF", () => {
    for (const s of ["Hi\r\nBcc: eve@evil.example", "a\rb", "a\nb"]) {
      assert.throws(() => formatSubject(s), { code: "ERR_MAIL_HEADER_INJECTION" });
    }
  });
});

describe("formatAddressField()", () => {
  it("folds many recipients onto lines of at most 78 chars", () => {
    const boxes = Array.from({ length: 12 }, (_, i) => ({ name: "", address: `user${i}@example.com` }));
    const field = formatAddressField("To", boxes);
    for (const line of field.split("\r\n")) assert.ok(line.length <= 78);
    assert.equal(unfolded(field), boxes.map((b) => b.address).join(", "));
  });
  it("quotes names with specials and encodes non-ASCII names", () => {
    assert.equal(formatAddressField("From", [{ name: 'A "B", C', address: "a@b.example" }]), 'From: "A \\"B\\", C" <a@b.example>');
    const field = formatAddressField("From", [{ name: "Ада", address: "a@b.example" }]);
    assert.equal(decodeWords(unfolded(field)), "Ада <a@b.example>");
  });
});

describe("formatCustomHeader()", () => {
  it("writes and folds a printable header", () => {
    assert.equal(formatCustomHeader("X-Tag", "v1"), "X-Tag: v1");
    const long = "tok ".repeat(40).trim();
    assert.equal(unfolded(formatCustomHeader("X-Long", long)), long);
  });
  const bad = [
    { name: "X-A", value: "v\r\nBcc: eve@evil.example", code: "ERR_MAIL_HEADER_INJECTION" },
    { name: "X-A", value: "v\n", code: "ERR_MAIL_HEADER_INJECTION" },
    { name: "X A", value: "v", code: "ERR_MAIL_INVALID_HEADER" },
    { name: "X:A", value: "v", code: "ERR_MAIL_INVALID_HEADER" },
    { name: "Bcc", value: "eve@evil.example", code: "ERR_MAIL_INVALID_HEADER" },
    { name: "content-type", value: "text/html", code: "ERR_MAIL_INVALID_HEADER" },
    { name: "X-A", value: "ü", code: "ERR_MAIL_INVALID_HEADER" },
    { name: "X-A", value: "x".repeat(1000), code: "ERR_MAIL_INVALID_HEADER" },
  ];
  for (const { name, value, code } of bad) {
    it(`refuses ${JSON.stringify(name)}: ${JSON.stringify(value.slice(0, 20))} with ${code}`, () => {
      assert.throws(() => formatCustomHeader(name, value), { code });
    });
  }
});

describe("foldChunks()", () => {
  it("reports a chunk that cannot fit in 998 chars", () => {
    assert.equal(foldChunks("X", ["a".repeat(995)]), "X: " + "a".repeat(995));
    assert.equal(foldChunks("X", ["a".repeat(996)]), undefined);
    assert.equal(foldChunks("X", ["a", " " + "b".repeat(998)]), undefined);
  });
});
