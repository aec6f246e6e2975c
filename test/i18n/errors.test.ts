import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { I18N_ERROR_CODES, I18nError, isI18nError } from "../../lib/i18n/errors.ts";
import { HTTPError } from "../../lib/http/index.ts";

describe("I18N_ERROR_CODES", () => {
  it("pins the number of codes", () => {
    assert.equal(Object.keys(I18N_ERROR_CODES).length, 6);
  });

  it("has every key equal to its value and prefixed ERR_I18N_", () => {
    for (const [key, value] of Object.entries(I18N_ERROR_CODES)) {
      assert.equal(key, value);
      assert.match(key, /^ERR_I18N_[A-Z_]+$/);
    }
  });
});

describe("isI18nError()", () => {
  it("recognises its own errors by code and refuses others", () => {
    const e = new I18nError("ERR_I18N_BAD_LOCALE", "new locales: malformed locale code");
    assert.equal(isI18nError(e), true);
    assert.equal(e.name, "I18nError");
    assert.equal(isI18nError(new HTTPError("ERR_HTTP_MALFORMED_BODY", "x")), false);
    assert.equal(isI18nError(new Error("ERR_I18N_BAD_LOCALE")), false);
    assert.equal(isI18nError("ERR_I18N_BAD_LOCALE"), false);
  });
});
