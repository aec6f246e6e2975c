import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isLatchError } from "../../lib/http/index.ts";
import { isOIDCError, OIDC_ERROR_CODES, OIDCError } from "../../lib/signin/oidc/errors.ts";

describe("OIDC_ERROR_CODES", () => {
  it("has 6 codes, each equal to its key and prefixed ERR_SIGNIN_OIDC_", () => {
    const entries = Object.entries(OIDC_ERROR_CODES);
    assert.equal(entries.length, 6);
    for (const [key, value] of entries) {
      assert.equal(key, value);
      assert.match(key, /^ERR_SIGNIN_OIDC_[A-Z_]+$/);
    }
  });
});

describe("isOIDCError()", () => {
  it("recognises OIDCError by code, and nothing else", () => {
    const e = new OIDCError("ERR_SIGNIN_OIDC_DISCOVERY", "parse provider metadata: x");
    assert.equal(e.name, "OIDCError");
    assert.equal(isOIDCError(e), true);
    assert.equal(isLatchError(e), true);
    const copy = Object.assign(new Error("copy"), { code: "ERR_SIGNIN_OIDC_JWKS" });
    assert.equal(isOIDCError(copy), true);
    assert.equal(isOIDCError(Object.assign(new Error("x"), { code: "ERR_HTTP_BODY_TOO_LARGE" })), false);
    assert.equal(isOIDCError({ code: "ERR_SIGNIN_OIDC_JWKS" }), false);
  });
});
