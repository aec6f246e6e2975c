/*
 * Sealing the old address of a reversal (schema.ts): AES-256-GCM under a key derived from `InstanceKey` with its own
 * label (`deriveKey`; a value sealed before under `deriveKeyV1` still opens), the reversal's token hash as additional
 * data (a sealed value pasted into another row does not open), a random 12-byte nonce per seal. Stored as base64url of
 * nonce, ciphertext and tag.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { deriveKey, deriveKeyV1 } from "../internal/index.ts";

const LABEL = "latch account reversal v1";
const NONCE = 12;
const TAG = 16;

/** The key reversals are sealed with, then the one they were sealed with before. */
export type ReversalKeys = readonly [Buffer, Buffer];

/**
 * The reversal keys of `instanceKey`: the one `seal` uses first, then the one reversals were sealed with before
 * `deriveKey`, which `unseal` still tries so an undo link made before an upgrade opens for its 7 days.
 */
export function reversalKeys(instanceKey: string): ReversalKeys {
  return [deriveKey(instanceKey, LABEL), deriveKeyV1(instanceKey, LABEL)];
}

/** Seals `text` with the first of `keys`, bound to `context`. */
export function seal(keys: ReversalKeys, context: string, text: string): string {
  const nonce = randomBytes(NONCE);
  const cipher = createCipheriv("aes-256-gcm", keys[0], nonce);
  cipher.setAAD(Buffer.from(context));
  const body = Buffer.concat([cipher.update(text, "utf8"), cipher.final()]);
  return Buffer.concat([nonce, body, cipher.getAuthTag()]).toString("base64url");
}

/** Opens a value `seal` made with one of `keys` and the same context; undefined when none opens it. */
export function unseal(keys: ReversalKeys, context: string, sealed: string): string | undefined {
  return unsealWith(keys[0], context, sealed) ?? unsealWith(keys[1], context, sealed);
}

function unsealWith(key: Buffer, context: string, sealed: string): string | undefined {
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
