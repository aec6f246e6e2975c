import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { PASSKEY_ERROR_CODES } from "../../lib/webauthn/errors.ts";
import { PasskeyError, isPasskeyError } from "../../lib/webauthn/index.ts";

describe("PASSKEY_ERROR_CODES", () => {
  it("pins the number of codes", () => {
    assert.equal(Object.keys(PASSKEY_ERROR_CODES).length, 26);
  });
  it("has each key equal to its value, prefixed ERR_PASSKEY_", () => {
    for (const [key, value] of Object.entries(PASSKEY_ERROR_CODES)) {
      assert.equal(key, value);
      assert.ok(key.startsWith("ERR_PASSKEY_"));
    }
  });
});

describe("isPasskeyError()", () => {
  it("recognises passkey errors by code and nothing else", () => {
    const e = new PasskeyError("ERR_PASSKEY_SIGNATURE", "passkey: x", { step: "7.2 step 21: signature", status: 400 });
    assert.equal(isPasskeyError(e), true);
    assert.equal(e.step, "7.2 step 21: signature");
    assert.equal(e.status, 400);
    assert.equal(e.name, "PasskeyError");
    assert.equal(isPasskeyError(Object.assign(new Error("x"), { code: "toString" })), false);
    assert.equal(isPasskeyError(Object.assign(new Error("x"), { code: "ERR_HTTP_ABORT_HANDLER" })), false);
    assert.equal(isPasskeyError("ERR_PASSKEY_SIGNATURE"), false);
  });
});
