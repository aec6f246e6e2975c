/*
 * Recovery codes (tokens come from the session module's NewToken and are
 * stored as its HashToken, like every other secret). Recovery codes are 10 characters from a 31-letter alphabet without
 * look-alikes (0/o, 1/i/l), shown as "xxxxx-xxxxx" (about 49.5 bits);
 * normalisation drops case, spaces and dashes before hashing, so a code
 * typed in any of those forms finds the same row.
 */
import type { RandomReader } from "../http/index.ts";

/** The recovery-code alphabet: digits 2-9 and lower-case letters without i, l, o. */
export const RECOVERY_ALPHABET = "23456789abcdefghjkmnpqrstuvwxyz";

/** Characters in one recovery code, excluding the dash. */
export const RECOVERY_CODE_LENGTH = 10;

/** Returns a new recovery code "xxxxx-xxxxx", drawn without modulo bias. */
export function newRecoveryCode(random: RandomReader): string {
  const limit = 256 - (256 % RECOVERY_ALPHABET.length);
  let code = "";
  while (code.length < RECOVERY_CODE_LENGTH) {
    for (const byte of random.read(RECOVERY_CODE_LENGTH * 2)) {
      if (byte < limit && code.length < RECOVERY_CODE_LENGTH) code += RECOVERY_ALPHABET[byte % RECOVERY_ALPHABET.length];
    }
  }
  return `${code.slice(0, 5)}-${code.slice(5)}`;
}

/** Normalises a typed recovery code: lower case, spaces and dashes removed. */
export function normalizeRecoveryCode(code: string): string {
  return code.toLowerCase().replace(/[\s-]+/g, "");
}
