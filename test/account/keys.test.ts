/*
 * Keys derived from InstanceKey (lib/internal/derive-key.ts) and the values
 * made with them before the one derivation: a deleted person's pseudonym
 * stays the same, and an undo link sealed under the old key still opens.
 * The vectors below were computed with the code before `deriveKey`
 * (HMAC-SHA-256(InstanceKey, label) as the key).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { deriveKey } from "../../lib/internal/index.ts";
import { pseudonym } from "../../lib/account/records.ts";
import { reversalKeys, seal, unseal } from "../../lib/account/seal.ts";

const INSTANCE_KEY = "an-instance-key-of-at-least-32-bytes";
// Sealed by the old account/seal.ts: its key HMAC-SHA-256(INSTANCE_KEY, "latch account reversal v1").
const SEALED_BEFORE = "D0vhXoubFTo6-PqkI4N_riAdwvB_Wu0ms4bz_zAV9ksNuMa-Pkc5iv-EYQ";
const CONTEXT = "token-hash-of-the-reversal";

describe("keys derived from InstanceKey", () => {
  it("derives with HKDF-SHA-256 (RFC 5869: empty salt, the purpose as info, one block)", () => {
    const prk = createHmac("sha256", Buffer.alloc(32)).update("instance-key").digest();
    const okm = createHmac("sha256", prk).update("purpose-a\x01").digest();
    assert.deepEqual(deriveKey("instance-key", "purpose-a"), okm);
  });

  it("keeps a deleted person's pseudonym as the code before made it", () => {
    assert.equal(pseudonym(INSTANCE_KEY, "ann@example.com"), "deleted:8dj1CWMzahJRIx4qwuKHnY");
  });

  it("opens a reversal sealed before the change, and seals new ones under deriveKey only", () => {
    const [current, before] = reversalKeys(INSTANCE_KEY);
    assert.equal(unseal(reversalKeys(INSTANCE_KEY), CONTEXT, SEALED_BEFORE), "old@example.com");
    assert.equal(unseal([current, current], CONTEXT, SEALED_BEFORE), undefined, "the new key alone does not open it");
    assert.deepEqual(current, deriveKey(INSTANCE_KEY, "latch account reversal v1"));
    const sealed = seal(reversalKeys(INSTANCE_KEY), CONTEXT, "old@example.com");
    assert.equal(unseal([before, before], CONTEXT, sealed), undefined, "a new seal is not under the old key");
    assert.equal(unseal(reversalKeys(INSTANCE_KEY), CONTEXT, sealed), "old@example.com");
    assert.equal(unseal(reversalKeys(INSTANCE_KEY), "another-reversal", sealed), undefined, "bound to its reversal");
  });
});
