import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { buildMessage } from "../../lib/mail/build.ts";
import type { Message } from "../../lib/mail/index.ts";
import { parseMail } from "../_support/mail-parse.ts";
import { randomTexts } from "../_support/random-text.ts";

const clock = { now: () => new Date("2025-07-01T09:05:03Z") };
let counter = 0;
const random = { read: (n: number) => new Uint8Array(n).fill(++counter) };
const base: Message = { From: "App <app@example.com>", To: "ada@example.com", Subject: "Hi", Text: "Hello" };

function assertWire(text: string): void {
  assert.ok(text.endsWith("\r\n"), "ends with CRLF");
  assert.doesNotMatch(text.replace(/\r\n/g, ""), /[\r\n]/, "no bare CR or LF");
  for (const line of text.split("\r\n")) {
    assert.ok(line.length <= 998, `line of ${line.length}`);
    assert.match(line, /^[\t\x20-\x7e]*$/, "7-bit");
  }
}

describe("buildMessage()", () => {
  it("writes the fixed headers in order with Date, Message-ID and MIME-Version", () => {
    const text = buildMessage(base, { clock, random: { read: (n) => new Uint8Array(n).fill(0xab) } });
    const head = text.slice(0, text.indexOf("\r\n\r\n"));
    assert.equal(
      head,
      [
        "From: App <app@example.com>",
        "To: ada@example.com",
        "Subject: Hi",
        "Date: Tue, 01 Jul 2025 09:05:03 +0000",
        `Message-ID: <${"ab".repeat(16)}@example.com>`,
        "MIME-Version: 1.0",
        "Content-Type: text/plain; charset=utf-8",
        "Content-Transfer-Encoding: quoted-printable",
      ].join("\r\n"),
    );
    assert.equal(text.slice(head.length), "\r\n\r\nHello\r\n");
  });

  it("uses messageIdDomain and custom headers", () => {
    const text = buildMessage({ ...base, Headers: { "X-Ref": "abc123" } }, { clock, random, messageIdDomain: "mail.example.org" });
    const m = parseMail(text);
    assert.match(m.headers.get("message-id") ?? "", /^<[0-9a-f]{32}@mail\.example\.org>$/);
    assert.equal(m.headers.get("x-ref"), "abc123");
  });

  it("folds every header line of a multipart message to 78 characters (RFC 5322 §2.1.1), Content-Type included", () => {
    const text = buildMessage({ ...base, HTML: "<p>Hello</p>" }, { clock, random });
    const header = text.slice(0, text.indexOf("\r\n\r\n")).split("\r\n");
    for (const line of header) assert.ok(line.length <= 78, `${line.length}: ${line}`);
    assert.match(header.join("\r\n"), /\r\nContent-Type: multipart\/alternative;\r\n boundary="=_[0-9a-f]{32}"$/);
  });

  it("builds multipart/alternative with text then html and a boundary absent from the bodies", () => {
    const text = buildMessage(
      { ...base, Text: "Open https://x.example/?a=1", HTML: '<a href="https://x.example/?a=1">Open</a>' },
      { clock, random },
    );
    assertWire(text);
    const ct = parseMail(text).headers.get("content-type") ?? "";
    const boundary = /boundary="(=_[0-9a-f]{32})"/.exec(ct)?.[1];
    assert.ok(boundary !== undefined, ct);
    assert.equal(text.split(`--${boundary}\r\n`).length, 3);
    assert.ok(text.endsWith(`--${boundary}--\r\n`));
    const m = parseMail(text);
    assert.equal(m.text, "Open https://x.example/?a=1");
    assert.equal(m.html, '<a href="https://x.example/?a=1">Open</a>');
    assert.ok(text.indexOf("text/plain") < text.indexOf("text/html"));
  });

  it("round-trips random unicode subjects and bodies through an independent decoder", () => {
    const gen = randomTexts(2024);
    for (let i = 0; i < 200; i++) {
      const subject = gen(120).replace(/[\r\n]/g, " ");
      const body = gen(600);
      const html = i % 2 === 0 ? gen(300) : undefined;
      const text = buildMessage(
        { ...base, Subject: subject, Text: body, ...(html === undefined ? {} : { HTML: html }) },
        { clock, random },
      );
      assertWire(text);
      const m = parseMail(text);
      assert.equal(m.subject, subject);
      assert.equal(m.text, body.replace(/\r\n|\r|\n/g, "\r\n"));
      if (html !== undefined) assert.equal(m.html, html.replace(/\r\n|\r|\n/g, "\r\n"));
    }
  });

  it("keeps a 2000-char line and lines starting with '.' intact, every line <= 76", () => {
    const body = ".leading\n..two\n.\n" + "z".repeat(2000) + "\nend";
    const text = buildMessage({ ...base, Text: body }, { clock, random });
    const bodyLines = text.slice(text.indexOf("\r\n\r\n") + 4).split("\r\n");
    for (const l of bodyLines) assert.ok(l.length <= 76);
    assert.equal(parseMail(text).text, body.replace(/\n/g, "\r\n"));
  });

  it("accepts several recipients", () => {
    const m = parseMail(buildMessage({ ...base, To: ["a@x.example", "B <b@y.example>"] }, { clock, random }));
    assert.equal(m.headers.get("to"), "a@x.example, B <b@y.example>");
  });

  const bad: Array<{ name: string; msg: Message; code: string }> = [
    { name: "CR/LF in Subject", msg: { ...base, Subject: "Hi\r\nBcc: eve@evil.example" }, code: "ERR_MAIL_HEADER_INJECTION" },
    { name: "LF in From", msg: { ...base, From: "app@example.com\nBcc: eve@evil.example" }, code: "ERR_MAIL_HEADER_INJECTION" },
    { name: "CR in a To entry", msg: { ...base, To: ["a@x.example", "b@y.example\r"] }, code: "ERR_MAIL_HEADER_INJECTION" },
    {
      name: "CR/LF in a custom header",
      msg: { ...base, Headers: { "X-A": "1\r\nBcc: e@evil.example" } },
      code: "ERR_MAIL_HEADER_INJECTION",
    },
    { name: "no recipients", msg: { ...base, To: [] }, code: "ERR_MAIL_INVALID_ADDRESS" },
    { name: "a bad recipient", msg: { ...base, To: "not-an-address" }, code: "ERR_MAIL_INVALID_ADDRESS" },
    { name: "angle injection", msg: { ...base, To: "a@x.example> <eve@evil.example" }, code: "ERR_MAIL_INVALID_ADDRESS" },
    { name: "a reserved custom header", msg: { ...base, Headers: { To: "eve@evil.example" } }, code: "ERR_MAIL_INVALID_HEADER" },
  ];
  for (const row of bad) {
    it(`refuses ${row.name} with ${row.code}`, () => {
      assert.throws(() => buildMessage(row.msg, { clock, random }), { code: row.code });
    });
  }
});
