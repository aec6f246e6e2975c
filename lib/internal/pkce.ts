/*
 * Proof Key for Code Exchange (RFC 7636) with the S256 method only (the
 * `plain` method offers no protection against an intercepted authorization
 * request): the one implementation of both ends, sign-in's OpenID client
 * (lib/signin/oidc sends a challenge) and the OAuth server (lib/oauth
 * checks a verifier against one).
 */
import { createHash } from "node:crypto";

/** The only code challenge method latch sends or accepts (RFC 7636 §4.2). */
export const PKCE_METHOD = "S256";

/** RFC 7636 §4.1: a code verifier is 43 to 128 characters of the unreserved set. */
export const PKCE_VERIFIER: RegExp = /^[A-Za-z0-9\-._~]{43,128}$/;

/** RFC 7636 §4.2: an S256 challenge is 43 base64url characters (a SHA-256 digest). */
export const PKCE_CHALLENGE: RegExp = /^[A-Za-z0-9_-]{43}$/;

/** Returns the S256 code challenge of `verifier`: BASE64URL(SHA256(ASCII(verifier))) (RFC 7636 §4.2). */
export function computeCodeChallenge(verifier: string): string {
  return createHash("sha256").update(verifier, "ascii").digest("base64url");
}
