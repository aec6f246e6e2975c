// Error references: shown on an error page and logged beside the failure, so a user's report finds the log line; nothing is stored under one.
import { cryptoRandom, type RandomReader } from "./clock.ts";

// RFC 4648 §6 base32 alphabet, lower-cased: a–z and 2–7, so no 0, 1, 8 or 9.
const ALPHABET = "abcdefghijklmnopqrstuvwxyz234567";

/** Returns a new error reference: 6 lowercase base32 characters from 4 random bytes (30 of their 32 bits). */

export function NewRef(random: RandomReader = cryptoRandom): string {
  const b = random.read(4);
  const n = (((b[0] ?? 0) << 24) | ((b[1] ?? 0) << 16) | ((b[2] ?? 0) << 8) | (b[3] ?? 0)) >>> 0;
  let out = "";
  for (let i = 0; i < 6; i++) out += ALPHABET[(n >>> (27 - 5 * i)) & 31];
  return out;
}
