/*
 * Sealing the old address of a reversal (schema.ts): AES-256-GCM under a
 * key derived from `InstanceKey` with its own label, the reversal's token
 * hash as additional data (a sealed value pasted into another row does not
 * open), a random 12-byte nonce per seal. Stored as base64url of nonce,
 * ciphertext and tag.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from "node:crypto";

const LABEL = "latch account reversal v1";
const NONCE = 12;
const TAG = 16;

/** Derives the sealing key from the InstanceKey (a separate key per use). */
export function deriveSealKey(instanceKey: string): Buffer {
  return createHmac("sha256", instanceKey).update(LABEL).digest();
}

/** Seals `text`, bound to `context`. */
export function seal(key: Buffer, context: string, text: string): string {
  const nonce = randomBytes(NONCE);
  const cipher = createCipheriv("aes-256-gcm", key, nonce);
  cipher.setAAD(Buffer.from(context));
  const body = Buffer.concat([cipher.update(text, "utf8"), cipher.final()]);
  return Buffer.concat([nonce, body, cipher.getAuthTag()]).toString("base64url");
}

/** Opens a value `seal` made with the same key and context; undefined when it does not open. */
export function unseal(key: Buffer, context: string, sealed: string): string | undefined {
  const bytes = Buffer.from(sealed, "base64url");
  if (bytes.length < NONCE + TAG) return undefined;
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, bytes.subarray(0, NONCE));
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG));
    return Buffer.concat([decipher.update(bytes.subarray(NONCE, bytes.length - TAG)), decipher.final()]).toString("utf8");
  } catch {
    return undefined;
  }
}
