import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { isFinalReplyLine, parseEHLO, parseReply, replyError } from "../../lib/mail/reply.ts";

describe("parseReply()", () => {
  const ok = [
    { lines: ["220 mail.example.com ESMTP ready"], want: { code: 220, lines: ["mail.example.com ESMTP ready"] } },
    { lines: ["250"], want: { code: 250, lines: [""] } },
    {
      lines: ["250-mail.example.com", "250-PIPELINING", "250 AUTH PLAIN LOGIN"],
      want: { code: 250, lines: ["mail.example.com", "PIPELINING", "AUTH PLAIN LOGIN"] },
    },
    { lines: ["550-5.1.1 No such", "550 user here"], want: { code: 550, lines: ["5.1.1 No such", "user here"] } },
  ];
  for (const { lines, want } of ok) it(`parses ${JSON.stringify(lines)}`, () => assert.deepEqual(parseReply(lines), want));

  const bad = [
    { lines: [], msg: "number of lines" },
    { lines: ["hello"], msg: "reply code" },
    { lines: ["25 short"], msg: "reply code" },
    { lines: ["250-a", "251 b"], msg: "codes differ" },
    { lines: ["250 a", "250 b"], msg: "continuation" },
    { lines: ["250-a"], msg: "continuation" },
    { lines: ["650 out of range"], msg: "reply code" },
    { lines: Array.from({ length: 101 }, (_, i) => (i === 100 ? "250 x" : "250-x")), msg: "number of lines" },
  ];
  for (const { lines, msg } of bad) {
    it(`refuses ${JSON.stringify(lines.slice(0, 2))}`, () => {
      assert.throws(
        () => parseReply(lines),
        (e: unknown) => {
          assert.ok(e instanceof Error && "code" in e);
          assert.equal(e.code, "ERR_MAIL_PROTOCOL");
          assert.match(e.message, new RegExp(msg));
          return true;
        },
      );
    });
  }
});

describe("isFinalReplyLine()", () => {
  it("tells continuation lines from final ones", () => {
    assert.equal(isFinalReplyLine("250-x"), false);
    assert.equal(isFinalReplyLine("250 x"), true);
    assert.equal(isFinalReplyLine("250"), true);
    assert.throws(() => isFinalReplyLine("xyz"), { code: "ERR_MAIL_PROTOCOL" });
  });
});

describe("parseEHLO()", () => {
  it("maps upper-cased keywords to parameters and skips the greeting line", () => {
    const ext = parseEHLO(parseReply(["250-mail.example.com greets you", "250-starttls", "250-SIZE 10240000", "250 AUTH LOGIN PLAIN"]));
    assert.deepEqual(
      [...ext.entries()],
      [
        ["STARTTLS", []],
        ["SIZE", ["10240000"]],
        ["AUTH", ["LOGIN", "PLAIN"]],
      ],
    );
  });
});

describe("replyError()", () => {
  const rows = [
    { code: 451, want: "ERR_MAIL_TRANSIENT", transient: true },
    { code: 554, want: "ERR_MAIL_PERMANENT", transient: false },
    { code: 250, want: "ERR_MAIL_PROTOCOL", transient: false },
  ];
  for (const row of rows) {
    it(`maps ${row.code} to ${row.want}`, () => {
      const e = replyError({ code: row.code, lines: ["nope\x07 bell"] }, "RCPT");
      assert.equal(e.code, row.want);
      assert.equal(e.transient, row.transient);
      assert.equal(e.replyCode, row.code);
      assert.equal(e.command, "RCPT");
      assert.equal(e.message, `mail: RCPT refused: ${row.code} nope bell`);
    });
  }
});
