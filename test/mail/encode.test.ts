import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  chooseTransferEncoding,
  dotStuff,
  encodeBase64Lines,
  encodeQuotedPrintable,
  encodeWords,
  normalizeNewlines,
} from "../../lib/mail/encode.ts";
import { decodeBase64, decodeQuotedPrintable, decodeWords } from "../_support/mail-parse.ts";
import { randomTexts } from "../_support/random-text.ts";

function assertLines(encoded: string, max: number): void {
  for (const line of encoded.split("\r\n")) {
    assert.ok(line.length <= max, `line of ${line.length} chars: ${line}`);
    assert.match(line, /^[\t\x20-\x7e]*$/, "7-bit printable or tab");
  }
  assert.doesNotMatch(encoded.replace(/\r\n/g, ""), /[\r\n]/, "no bare CR or LF");
}

describe("encodeQuotedPrintable()", () => {
  const rows = [
    { input: "hello", want: "hello" },
    { input: "a=b", want: "a=3Db" },
    { input: "trailing \nspace\t", want: "trailing=20\r\nspace=09" },
    { input: "é", want: "=C3=A9" },
    { input: "one\r\ntwo\rthree", want: "one\r\ntwo\r\nthree" },
    { input: "x".repeat(80), want: "x".repeat(75) + "=\r\n" + "x".repeat(5) },
    { input: "x".repeat(76), want: "x".repeat(76) },
    { input: "x".repeat(74) + "é", want: "x".repeat(74) + "=\r\n=C3=A9" },
  ];
  for (const { input, want } of rows) {
    it(`encodes ${JSON.stringify(input.slice(0, 20))}`, () => assert.equal(encodeQuotedPrintable(input), want));
  }
  it("round-trips random unicode through an independent decoder, lines <= 76", () => {
    const gen = randomTexts(42);
    for (let i = 0; i < 500; i++) {
      const s = gen(300);
      const enc = encodeQuotedPrintable(s);
      assertLines(enc, 76);
      assert.equal(decodeQuotedPrintable(enc), normalizeNewlines(s));
    }
  });
  it("keeps a 2000-char line as soft-broken lines of at most 76 chars", () => {
    const enc = encodeQuotedPrintable("y".repeat(2000));
    assertLines(enc, 76);
    assert.equal(decodeQuotedPrintable(enc), "y".repeat(2000));
  });
});

describe("encodeBase64Lines()", () => {
  it("round-trips random unicode with Buffer, CRLF line breaks, lines <= 76", () => {
    const gen = randomTexts(7);
    for (let i = 0; i < 300; i++) {
      const s = gen(400);
      const enc = encodeBase64Lines(s);
      assertLines(enc, 76);
      assert.equal(decodeBase64(enc), normalizeNewlines(s));
    }
  });
});

describe("chooseTransferEncoding()", () => {
  const rows = [
    { input: "Sign in: https://example.com/auth/verify?t=abc", want: "quoted-printable" },
    { input: "Привет, мир", want: "base64" },
    { input: "", want: "quoted-printable" },
    { input: "Café au lait, s'il vous plaît", want: "quoted-printable" },
  ] as const;
  for (const { input, want } of rows)
    it(`picks ${want} for ${JSON.stringify(input)}`, () => assert.equal(chooseTransferEncoding(input), want));
});

describe("encodeWords()", () => {
  it("produces words of at most 64 chars that decode to the input", () => {
    const gen = randomTexts(99);
    for (let i = 0; i < 300; i++) {
      const s = gen(200);
      if (s === "") continue;
      const words = encodeWords(s);
      for (const w of words) {
        assert.ok(w.length <= 64, w);
        assert.match(w, /^=\?UTF-8\?B\?[A-Za-z0-9+/=]*\?=$/);
        // RFC 2047 §5: each word holds whole characters, so each decodes alone without U+FFFD.
        assert.doesNotMatch(decodeWords(w), /\uFFFD/);
      }
      assert.equal(decodeWords(words.join("\r\n ")), s);
    }
  });
});

describe("dotStuff()", () => {
  const rows = [
    { input: ".\r\n", want: "..\r\n" },
    { input: "a\r\n.b\r\n..c\r\n", want: "a\r\n..b\r\n...c\r\n" },
    { input: "a.b\r\n", want: "a.b\r\n" },
  ];
  for (const { input, want } of rows) it(`stuffs ${JSON.stringify(input)}`, () => assert.equal(dotStuff(input), want));
});
