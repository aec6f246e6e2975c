import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { MAIL_ERROR_CODES } from "../../lib/mail/errors.ts";
import { MailError, isMailError } from "../../lib/mail/index.ts";

describe("MAIL_ERROR_CODES", () => {
  it("pins the number of codes", () => {
    assert.equal(Object.keys(MAIL_ERROR_CODES).length, 13);
  });
  it("has every key equal to its value, prefixed ERR_MAIL_", () => {
    for (const [k, v] of Object.entries(MAIL_ERROR_CODES)) {
      assert.equal(k, v);
      assert.match(k, /^ERR_MAIL_[A-Z_]+$/);
    }
  });
});

describe("MailError()", () => {
  const rows = [
    { code: "ERR_MAIL_TRANSIENT", replyCode: 451, want: true },
    { code: "ERR_MAIL_PERMANENT", replyCode: 550, want: false },
    { code: "ERR_MAIL_AUTH", replyCode: 454, want: true },
    { code: "ERR_MAIL_AUTH", replyCode: 535, want: false },
    { code: "ERR_MAIL_TIMEOUT", replyCode: undefined, want: true },
    { code: "ERR_MAIL_CONNECT", replyCode: undefined, want: true },
    { code: "ERR_MAIL_HEADER_INJECTION", replyCode: undefined, want: false },
  ] as const;
  for (const row of rows) {
    it(`derives transient=${row.want} for ${row.code} ${row.replyCode ?? ""}`, () => {
      const e = new MailError(row.code, "mail: x", row.replyCode === undefined ? {} : { replyCode: row.replyCode });
      assert.equal(e.transient, row.want);
      assert.equal(e.replyCode, row.replyCode);
    });
  }
  it("lets an explicit transient win", () => {
    assert.equal(new MailError("ERR_MAIL_CONNECT", "mail: x", { transient: false }).transient, false);
  });
});

describe("isMailError()", () => {
  it("recognises mail errors by code, not by class", () => {
    assert.equal(isMailError(new MailError("ERR_MAIL_AUTH", "mail: x")), true);
    assert.equal(isMailError(Object.assign(new Error("copy"), { code: "ERR_MAIL_AUTH" })), true);
  });
  it("rejects other errors and inherited property names", () => {
    assert.equal(isMailError(Object.assign(new Error("x"), { code: "ERR_HTTP_BODY_TOO_LARGE" })), false);
    assert.equal(isMailError(Object.assign(new Error("x"), { code: "toString" })), false);
    assert.equal(isMailError("ERR_MAIL_AUTH"), false);
  });
});
