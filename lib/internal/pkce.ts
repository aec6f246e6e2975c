// Proof Key for Code Exchange (RFC 7636), both ends (lib/signin/oidc sends a challenge, lib/oauth checks a verifier); S256 only: `plain` offers no protection against an intercepted authorization request.
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
