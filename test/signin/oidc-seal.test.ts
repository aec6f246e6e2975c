import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { describe, it } from "node:test";
import { deriveKey } from "../../lib/internal/index.ts";
import { MAX_SEALED_LENGTH, openBlob, sealBlob } from "../../lib/internal/seal.ts";

const key = deriveKey("instance-key", "purpose-a");
const now = new Date("2030-01-01T00:00:00Z");
const later = new Date(now.getTime() + 60_000);
const data = { state: "s", nonce: "n", list: [1, 2, 3] };

describe("sealBlob() / openBlob()", () => {
  it("round-trips a JSON value until its expiry", () => {
    const sealed = sealBlob(key, data, later);
    assert.match(sealed, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    assert.deepEqual(openBlob(key, sealed, now), { ok: true, data });
    assert.deepEqual(openBlob(key, sealed, new Date(later.getTime() - 1)), { ok: true, data });
  });

  it("reports expired at and after the expiry", () => {
    const sealed = sealBlob(key, data, later);
    assert.deepEqual(openBlob(key, sealed, later), { ok: false, reason: "expired" });
    assert.deepEqual(openBlob(key, sealed, new Date(later.getTime() + 1)), { ok: false, reason: "expired" });
  });

  it("refuses the blob after any single character is changed", () => {
    const sealed = sealBlob(key, data, later);
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    for (let i = 0; i < sealed.length; i++) {
      if (sealed[i] === ".") continue;
      for (const c of [alphabet[(alphabet.indexOf(sealed[i] ?? "A") + 1) % 64], alphabet[(alphabet.indexOf(sealed[i] ?? "A") + 32) % 64]]) {
        const tampered = sealed.slice(0, i) + c + sealed.slice(i + 1);
        const result = openBlob(key, tampered, now);
        assert.equal(result.ok, false, `position ${i} -> ${c}`);
      }
    }
  });

  it("refuses a blob sealed with another key or label", () => {
    const sealed = sealBlob(key, data, later);
    assert.deepEqual(openBlob(deriveKey("other-key", "purpose-a"), sealed, now), { ok: false, reason: "bad_mac" });
    assert.deepEqual(openBlob(deriveKey("instance-key", "purpose-b"), sealed, now), { ok: false, reason: "bad_mac" });
  });

  it("refuses malformed input without throwing", () => {
    const sealed = sealBlob(key, data, later);
    const rows = ["", ".", "abc", `${sealed}.x`, sealed.replace(".", "!"), "a".repeat(MAX_SEALED_LENGTH + 1), "a b.c"];
    for (const input of rows) {
      const result = openBlob(key, input, now);
      assert.deepEqual(result, { ok: false, reason: "malformed" }, JSON.stringify(input.slice(0, 40)));
    }
  });

  it("refuses a correctly MACed body that is not a sealed object", () => {
    for (const body of ["[]", '{"exp":"soon","data":1}', '{"data":1}', "not json"]) {
      const b = Buffer.from(body).toString("base64url");
      const tag = createHmac("sha256", key).update(b).digest("base64url");
      assert.deepEqual(openBlob(key, `${b}.${tag}`, now), { ok: false, reason: "malformed" }, body);
    }
  });
});

describe("deriveKey()", () => {
  it("derives distinct 32-byte keys per label, never the raw instance key", () => {
    const a = deriveKey("instance-key", "purpose-a");
    assert.equal(a.length, 32);
    assert.notDeepEqual(a, deriveKey("instance-key", "purpose-b"));
    assert.notDeepEqual(a, Buffer.from("instance-key"));
    assert.deepEqual(a, deriveKey("instance-key", "purpose-a"));
  });

  it("refuses an empty instance key or label", () => {
    assert.throws(() => deriveKey("", "label"), TypeError);
    assert.throws(() => deriveKey("key", ""), TypeError);
  });
});
