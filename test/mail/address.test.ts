import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { parseAddress } from "../../lib/mail/address.ts";

describe("parseAddress()", () => {
  const ok = [
    { input: "ada@example.com", want: { name: "", address: "ada@example.com" } },
    { input: "  ada@example.com ", want: { name: "", address: "ada@example.com" } },
    { input: "Ada Lovelace <ada@example.com>", want: { name: "Ada Lovelace", address: "ada@example.com" } },
    { input: '"Lovelace, Ada" <ada@example.com>', want: { name: "Lovelace, Ada", address: "ada@example.com" } },
    { input: '"say \\"hi\\"" <a@b.example>', want: { name: 'say "hi"', address: "a@b.example" } },
    { input: "Ада <ada+tag@mail.example.org>", want: { name: "Ада", address: "ada+tag@mail.example.org" } },
    { input: "<ada@example.com>", want: { name: "", address: "ada@example.com" } },
  ];
  for (const { input, want } of ok) it(`parses ${JSON.stringify(input)}`, () => assert.deepEqual(parseAddress(input), want));

  const bad = [
    { input: "ada@example.com\r\nBcc: eve@evil.example", code: "ERR_MAIL_HEADER_INJECTION", msg: "CR or LF" },
    { input: "ada@example.com\n", code: "ERR_MAIL_HEADER_INJECTION", msg: "CR or LF" },
    { input: "ada", code: "ERR_MAIL_INVALID_ADDRESS", msg: "missing" },
    { input: "@example.com", code: "ERR_MAIL_INVALID_ADDRESS", msg: "missing" },
    { input: "ada@", code: "ERR_MAIL_INVALID_ADDRESS", msg: "domain" },
    { input: "a b@example.com", code: "ERR_MAIL_INVALID_ADDRESS", msg: "unexpected" },
    { input: "x <a@b.example>, y <c@d.example>", code: "ERR_MAIL_INVALID_ADDRESS", msg: "angle" },
    { input: "Eve <eve@evil.example> <ada@example.com>", code: "ERR_MAIL_INVALID_ADDRESS", msg: "angle" },
    { input: "a@b.example>", code: "ERR_MAIL_INVALID_ADDRESS", msg: "unbalanced" },
    { input: "ada@exa_mple.com", code: "ERR_MAIL_INVALID_ADDRESS", msg: "domain" },
    { input: "ada..x@example.com", code: "ERR_MAIL_INVALID_ADDRESS", msg: "dot-atom" },
    { input: "адa@example.com", code: "ERR_MAIL_INVALID_ADDRESS", msg: "dot-atom" },
    { input: "ada@\0example.com", code: "ERR_MAIL_INVALID_ADDRESS", msg: "control" },
    { input: "x".repeat(65) + "@example.com", code: "ERR_MAIL_INVALID_ADDRESS", msg: "too long" },
  ];
  for (const { input, code, msg } of bad) {
    it(`refuses ${JSON.stringify(input.slice(0, 40))} with ${code}`, () => {
      assert.throws(
        () => parseAddress(input),
        (e: unknown) => {
          assert.ok(e instanceof Error && "code" in e);
          assert.equal(e.code, code);
          assert.match(e.message, new RegExp(msg));
          return true;
        },
      );
    });
  }
});
