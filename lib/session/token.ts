/* Session and link tokens: 32 random bytes, base64url. Only their SHA-256 is stored: a read of the database opens nothing. */
import { createHash } from "node:crypto";
import { cryptoRandom, type RandomReader } from "../http/index.ts";

/** The shape of a `NewToken` token: 32 bytes in base64url, 43 characters; check it before any lookup. */
export const TOKEN_PATTERN: RegExp = /^[A-Za-z0-9_-]{43}$/;

/** Returns a new random token: 32 bytes, base64url without padding. */
export function NewToken(random: RandomReader = cryptoRandom): string {
  return Buffer.from(random.read(32)).toString("base64url");
}

/** Returns the stored form of a token: SHA-256, base64url. */
export function HashToken(token: string): string {
  return createHash("sha256").update(token).digest("base64url");
}
