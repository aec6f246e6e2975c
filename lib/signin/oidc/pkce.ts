/*
 * The code verifier sign-in's OpenID client sends (RFC 7636, S256 only);
 * the challenge is lib/internal's `computeCodeChallenge`, the one the OAuth
 * server checks with.
 */
import { cryptoRandom, type RandomReader } from "../../http/index.ts";
import { NewToken } from "../../session/index.ts";

export { computeCodeChallenge, PKCE_METHOD } from "../../internal/index.ts";

/**
 * Returns a new code verifier: 32 random bytes as base64url, 43 characters
 * from the unreserved set (RFC 7636 §4.1 requires 43 to 128).
 */
export function createCodeVerifier(random: RandomReader = cryptoRandom): string {
  return NewToken(random);
}
