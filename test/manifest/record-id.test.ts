/*
 * A record's id never starts with "-": the CSV export would neutralise it as a formula ("'-…"), and the id in a
 * spreadsheet would no longer be the record's (the export's reference columns, an import matching by id).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { newID } from "../../lib/manifest/store.ts";

describe("a record's id", () => {
  it("is 12 base64url characters and never starts with a formula's '-' (10,000 drawn; one in 64 would without the rule)", () => {
    for (let n = 0; n < 10_000; n++) {
      const id = newID();
      assert.match(id, /^[A-Za-z0-9_][A-Za-z0-9_-]{11}$/, id);
    }
  });
});
