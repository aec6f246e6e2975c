import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { DBError, isDBError } from "../../lib/db/errors.ts";
import { ErrAbortHandler, HTTPError, LatchError, isAbortHandler, isLatchError } from "../../lib/http/index.ts";
import { HTTP_ERROR_CODES } from "../../lib/http/errors.ts";

describe("HTTP_ERROR_CODES", () => {
  test("pins the count and that each key equals its code", () => {
    assert.equal(Object.keys(HTTP_ERROR_CODES).length, 8);
    for (const [key, value] of Object.entries(HTTP_ERROR_CODES)) {
      assert.equal(key, value);
      assert.match(key, /^ERR_HTTP_[A-Z_]+$/);
    }
  });
});

describe("new LatchError()", () => {
  test("carries code, status, name and cause", () => {
    const cause = new Error("root");
    const err = new HTTPError("ERR_HTTP_MALFORMED_BODY", "read json: bad", { status: 400, cause });
    assert.ok(err instanceof LatchError);
    assert.equal(err.name, "HTTPError");
    assert.equal(err.code, "ERR_HTTP_MALFORMED_BODY");
    assert.equal(err.status, 400);
    assert.equal(err.cause, cause);
    assert.equal(new DBError("ERR_DB_OPEN", "open db: x").name, "DBError");
  });

  test("isLatchError and isDBError recognise copies by shape, not instanceof", () => {
    const copy = Object.assign(new Error("open db: x"), { code: "ERR_DB_OPEN" });
    assert.equal(isLatchError(copy), true);
    assert.equal(isDBError(copy), true);
    assert.equal(isDBError(Object.assign(new Error("x"), { code: "ERR_HTTP_ABORT_HANDLER" })), false);
    assert.equal(isLatchError(new Error("plain")), false);
    assert.equal(isLatchError({ code: "ERR_X" }), false);
    assert.equal(isAbortHandler(ErrAbortHandler), true);
    assert.equal(isAbortHandler(Object.assign(new Error("copy"), { code: "ERR_HTTP_ABORT_HANDLER" })), true);
    assert.equal(isAbortHandler(new HTTPError("ERR_HTTP_MALFORMED_BODY", "x")), false);
  });
});
