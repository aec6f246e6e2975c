import { timingSafeEqual } from "node:crypto";

/**
 * Reports whether two strings are equal in time that depends only on their
 * lengths (`timingSafeEqual` over their UTF-8 bytes): every secret given as a
 * string (tokens, codes, challenges, OIDC state and nonce), where `===` would leak a prefix.
 */

export function equalSecret(a: string, b: string): boolean {
  const x = Buffer.from(a, "utf8");
  const y = Buffer.from(b, "utf8");
  return x.length === y.length && timingSafeEqual(x, y);
}
