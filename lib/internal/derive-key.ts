/*
 * The one derivation of a key from `InstanceKey`: HKDF-SHA-256 (RFC 5869),
 * empty salt, the purpose label as info, 32 bytes, so one instance key
 * serves every sealed or keyed value and no purpose's key is another's.
 *
 * `deriveKeyV1` is the derivation latch used before for some labels
 * (HMAC-SHA-256 keyed by `InstanceKey` over the label). It stays only where
 * a value made with it must stay valid: a deleted person's pseudonym (it
 * keys their events for good, so it is that purpose's definition) and
 * reversals sealed before (opened with it for their 7-day window).
 */
import { createHmac, hkdfSync } from "node:crypto";

/** The 32-byte key of `purpose` (a label naming it and its version). Throws `TypeError` when either is empty. */
export function deriveKey(instanceKey: string, purpose: string): Buffer {
  if (instanceKey === "" || purpose === "") throw new TypeError("derive key: empty instance key or purpose");
  return Buffer.from(hkdfSync("sha256", instanceKey, Buffer.alloc(0), purpose, 32));
}

/** The key of `purpose` as latch derived it before `deriveKey`: HMAC-SHA-256(InstanceKey, purpose). */
export function deriveKeyV1(instanceKey: string, purpose: string): Buffer {
  return createHmac("sha256", instanceKey).update(purpose).digest();
}
