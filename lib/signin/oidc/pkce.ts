/*
 * Proof Key for Code Exchange (RFC 7636) with the S256 method only: the
 * `plain` method offers no protection against an intercepted authorization
 * request and is never sent.
 */
import { createHash } from "node:crypto";
import { cryptoRandom, type RandomReader } from "../../http/index.ts";
import { NewToken } from "../../session/index.ts";

/** The only code challenge method latch sends (RFC 7636 §4.2). */
export const PKCE_METHOD = "S256";

/**
 * Returns a new code verifier: 32 random bytes as base64url, 43 characters
 * from the unreserved set (RFC 7636 §4.1 requires 43 to 128).
 */
export function createCodeVerifier(random: RandomReader = cryptoRandom): string {
  return NewToken(random);
}

/** Returns the S256 code challenge of `verifier`: BASE64URL(SHA256(ASCII(verifier))) (RFC 7636 §4.2). */
export function computeCodeChallenge(verifier: string): string {
  return createHash("sha256").update(verifier, "ascii").digest("base64url");
}
