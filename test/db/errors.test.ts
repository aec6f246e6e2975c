import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { DBError, DB_ERROR_CODES, isDBError } from "../../lib/db/errors.ts";
import { isLatchError } from "../../lib/http/index.ts";

describe("DB_ERROR_CODES", () => {
  test("pins the count and that each key equals its code", () => {
    assert.equal(Object.keys(DB_ERROR_CODES).length, 8);
    for (const [key, value] of Object.entries(DB_ERROR_CODES)) {
      assert.equal(key, value);
      assert.match(key, /^ERR_DB_[A-Z_]+$/);
    }
  });
});

describe("isDBError()", () => {
  test("recognises DB errors by code only", () => {
    assert.equal(isDBError(new DBError("ERR_DB_STEP_FAILED", "apply schema: x")), true);
    assert.equal(isLatchError(new DBError("ERR_DB_STEP_FAILED", "apply schema: x")), true);
    assert.equal(isDBError(Object.assign(new Error("copy"), { code: "ERR_DB_OPEN" })), true);
    assert.equal(isDBError(Object.assign(new Error("x"), { code: "ERR_HTTP_ABORT_HANDLER" })), false);
    assert.equal(isDBError(Object.assign(new Error("x"), { code: "toString" })), false);
    assert.equal(isDBError({ code: "ERR_DB_OPEN" }), false);
  });
});
