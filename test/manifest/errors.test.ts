import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { isManifestError, MANIFEST_ERROR_CODES, ManifestError } from "../../lib/manifest/errors.ts";

describe("MANIFEST_ERROR_CODES", () => {
  it("pins the number of codes", () => assert.equal(Object.keys(MANIFEST_ERROR_CODES).length, 20));
  it("has each key equal to its code", () => {
    for (const [key, value] of Object.entries(MANIFEST_ERROR_CODES)) assert.equal(key, value);
  });
});

describe("ManifestError", () => {
  it("names the resource and field in its message and properties", () => {
    const e = new ManifestError("ERR_MANIFEST_RESERVED_FIELD", { resource: "invoices", field: "id" }, "collides");
    assert.equal(e.message, 'validate resource "invoices" field "id": collides');
    assert.equal(e.resource, "invoices");
    assert.equal(e.field, "id");
    assert.equal(e.name, "ManifestError");
    assert.equal(isManifestError(e), true);
    assert.equal(isManifestError(new Error("x")), false);
    assert.equal(new ManifestError("ERR_MANIFEST_NO_FIELDS", { resource: "r" }, "empty").field, undefined);
  });
});
