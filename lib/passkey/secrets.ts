/*
 * Recovery codes: 16 characters without look-alikes (0/o, 1/i/l), about 79
 * bits, stored as a salted, domain-separated SHA-256 (README
 * "Records" says why). The domain strings keep these hashes
 * apart from every other SHA-256 latch stores (tokens, challenge binders).
 */
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import type { RandomReader } from "../http/index.ts";

/** The recovery-code alphabet: digits 2-9 and lower-case letters without i, l, o. */
export const RECOVERY_ALPHABET = "23456789abcdefghjkmnpqrstuvwxyz";

/** Characters in one recovery code, excluding the dashes (16, about 79 bits). */
export const RECOVERY_CODE_LENGTH = 16;

/** Characters per dash-separated group of a displayed code. */
const GROUP = 4;

/** Domain separator of stored recovery-code hashes with a random salt; changing it orphans every stored code. */
const HASH_DOMAIN = "latch/passkey/recovery-code v2\0";

/** Domain separator of the subject-salted hashes stored before the salt column (passkey/007). */
const SUBJECT_HASH_DOMAIN = "latch/passkey/recovery-code v1\0";

/** Random bytes of a set's salt: 16. */
const SALT_BYTES = 16;

/** Returns a new salt for a set of codes: SALT_BYTES random bytes, base64url. */
export function newRecoveryCodeSalt(random: RandomReader): string {
  return Buffer.from(random.read(SALT_BYTES)).toString("base64url");
}

/** Returns a new recovery code "xxxx-xxxx-xxxx-xxxx", drawn without modulo bias. */
export function newRecoveryCode(random: RandomReader): string {
  const limit = 256 - (256 % RECOVERY_ALPHABET.length);
  let code = "";
  while (code.length < RECOVERY_CODE_LENGTH) {
    for (const byte of random.read(RECOVERY_CODE_LENGTH * 2)) {
      if (byte < limit && code.length < RECOVERY_CODE_LENGTH) code += RECOVERY_ALPHABET[byte % RECOVERY_ALPHABET.length];
    }
  }
  return Array.from({ length: RECOVERY_CODE_LENGTH / GROUP }, (_, i) => code.slice(i * GROUP, (i + 1) * GROUP)).join("-");
}

/** Normalises a typed recovery code: lower case, spaces and dashes removed. */
export function normalizeRecoveryCode(code: string): string {
  return code.toLowerCase().replace(/[\s-]+/g, "");
}

/**
 * Returns the stored form of `code` of a set salted with `salt`: base64url
 * SHA-256 of the domain, the salt and the normalised code. An empty salt
 * (a row from before passkey/007) gives the v1 form, salted with `subject`.
 */
export function hashRecoveryCode(salt: string, subject: string, code: string): string {
  const input = salt === "" ? `${SUBJECT_HASH_DOMAIN}${subject}` : `${HASH_DOMAIN}${salt}`;
  return createHash("sha256")
    .update(`${input}\0${normalizeRecoveryCode(code)}`)
    .digest("base64url");
}
