// `deriveKeyV1`, the derivation before HKDF, stays where values made with it must stay valid: the pseudonym (for good) and reversals sealed before (7 days).
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
