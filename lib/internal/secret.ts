/*
 * The one constant-time string comparison every component uses for secrets
 * (tokens, codes, challenges, OIDC state and nonce).
 */
import { timingSafeEqual } from "node:crypto";

/**
 * Reports whether two strings are equal, in time that depends only on their
 * lengths (node:crypto `timingSafeEqual` over their UTF-8 bytes): for
 * comparing secrets and challenges, where `===` would leak a prefix.
 */
export function equalSecret(a: string, b: string): boolean {
  const x = Buffer.from(a, "utf8");
  const y = Buffer.from(b, "utf8");
  return x.length === y.length && timingSafeEqual(x, y);
}
