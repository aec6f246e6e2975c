import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ASSETS_ERROR_CODES, AssetsError, isAssetsError } from "../../lib/assets/errors.ts";
import { LatchError } from "../../lib/http/index.ts";

describe("ASSETS_ERROR_CODES", () => {
  it("pins the number of codes", () => {
    assert.equal(Object.keys(ASSETS_ERROR_CODES).length, 6);
  });
  it("has each key equal to its code", () => {
    for (const [key, value] of Object.entries(ASSETS_ERROR_CODES)) assert.equal(key, value);
  });
});

describe("isAssetsError()", () => {
  it("recognises an AssetsError and refuses other errors", () => {
    const e = new AssetsError("ERR_ASSETS_UNKNOWN_NAME", "asset path: x");
    assert.ok(e instanceof LatchError);
    assert.equal(e.name, "AssetsError");
    assert.equal(isAssetsError(e), true);
    assert.equal(isAssetsError(new Error("x")), false);
    assert.equal(isAssetsError(new LatchError("ERR_OTHER_THING", "x")), false);
  });
});
