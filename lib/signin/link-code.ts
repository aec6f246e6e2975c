/*
 * The 6-digit sign-in code beside each emailed link: an HMAC of the token under a key derived from the
 * InstanceKey (the code page shows it from the token alone), stored only as an HMAC of (token hash,
 * code). OWASP ASVS 5.0 §6.5.4 (at least 20 bits), §6.6.3: with the binding and MAX_CODE_ATTEMPTS, a
 * guesser's odds are 5 in a million per link.
 */
import { createHmac } from "node:crypto";
import { deriveKey } from "../internal/index.ts";

/** Digits of a sign-in code: 6. */
export const CODE_LENGTH: number = 6;

/** Wrong codes that void a browser's pending sign-ins: 5. */
export const MAX_CODE_ATTEMPTS: number = 5;

const LABEL = "latch signin code v1";

/** The code key: `deriveKey` of the InstanceKey for LABEL. */
export function deriveCodeKey(instanceKey: string): Buffer {
  return deriveKey(instanceKey, LABEL);
}

/** Returns the code of a link token: CODE_LENGTH decimal digits. */
export function codeForToken(key: Buffer, token: string): string {
  const mac = createHmac("sha256", key).update(`token:${token}`).digest();
  // 48 bits mod 10^6: the bias is below 10^-8, far under the guessing odds.
  return String(mac.readUIntBE(0, 6) % 10 ** CODE_LENGTH).padStart(CODE_LENGTH, "0");
}

/** Returns the stored form of `code` for the link whose token hash is `tokenHash`. */
export function hashCode(key: Buffer, tokenHash: string, code: string): string {
  return createHmac("sha256", key).update(`code:${tokenHash}:${code}`).digest("base64url");
}
