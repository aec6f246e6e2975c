/* ID token validation (OIDC Core 1.0 §3.1.3.7), in that section's order, so a token failing several reports the first. */
import type { KeyObject } from "node:crypto";
import { equalSecret, ownField } from "../../internal/index.ts";
import { parseJWT, verifyJWTSignature, type JWSAlgorithm } from "./jwt.ts";

/** Clock skew tolerated on `exp`, `iat` and `nbf`, in ms: 60 seconds. */
export const ID_TOKEN_CLOCK_SKEW: number = 60 * 1000;

/** What the ID token must say. */
export interface IDTokenExpectations {
  /** The issuer identifier from the provider's metadata. */
  issuer: string;
  /** Our client_id (the `Origin`). */
  audience: string;
  /** The nonce sent in the authorization request. */
  nonce: string;
  now: Date;
  /** @default ID_TOKEN_CLOCK_SKEW */
  skew?: number;
}

/** The claims latch reads from a valid ID token. */
export interface IDTokenClaims {
  sub: string;
  /** The `email` claim, when present. */
  email: string | undefined;
  /** Whether `email_verified` is the JSON value `true` (a string "true" is not). */
  emailVerified: boolean;
  /** When the person last authenticated at the provider (`auth_time`), when present and not in the future. */
  authTime: Date | undefined;
}

/** Why an ID token was refused. */
export type IDTokenFailure = "malformed" | "signature" | "iss" | "aud" | "azp" | "exp" | "iat" | "nbf" | "nonce" | "sub";

/** The outcome of ID token verification. */
export type IDTokenResult = { ok: true; claims: IDTokenClaims } | { ok: false; reason: IDTokenFailure };

/** Finds the keys that may have signed a token with this `kid` and `alg`. */
export type KeyFinder = (kid: string | undefined, alg: JWSAlgorithm) => Promise<KeyObject[]>;

/** Checks the claims of an already signature-verified ID token payload against `expect`. */
export function verifyIDTokenClaims(payload: object, expect: IDTokenExpectations): IDTokenResult {
  const skew = expect.skew ?? ID_TOKEN_CLOCK_SKEW;
  const now = expect.now.getTime();
  // OIDC Core §3.1.3.7 step 2: iss must exactly match the issuer identifier.
  if (ownField(payload, "iss") !== expect.issuer) return { ok: false, reason: "iss" };
  const aud = ownField(payload, "aud");
  const audiences = typeof aud === "string" ? [aud] : Array.isArray(aud) ? aud : [];
  // OIDC Core §3.1.3.7 step 3: aud must contain our client_id.
  if (!audiences.includes(expect.audience)) return { ok: false, reason: "aud" };
  const azp = ownField(payload, "azp");
  // OIDC Core §3.1.3.7 steps 4-5: with several audiences, or any azp, azp must be our client_id.
  if ((audiences.length > 1 || azp !== undefined) && azp !== expect.audience) return { ok: false, reason: "azp" };
  const exp = ownField(payload, "exp");
  // OIDC Core §3.1.3.7 step 9: now must be before exp (with skew).
  if (typeof exp !== "number" || now >= exp * 1000 + skew) return { ok: false, reason: "exp" };
  const iat = ownField(payload, "iat");
  // OIDC Core §3.1.3.7 step 10: iat is required; refuse one from the future beyond the skew.
  if (typeof iat !== "number" || iat * 1000 > now + skew) return { ok: false, reason: "iat" };
  const nbf = ownField(payload, "nbf");
  // RFC 7519 §4.1.5: not before nbf (with skew), when present.
  if (nbf !== undefined && (typeof nbf !== "number" || nbf * 1000 > now + skew)) return { ok: false, reason: "nbf" };
  const nonce = ownField(payload, "nonce");
  // OIDC Core §3.1.3.7 step 11: the nonce must equal the one we sent (replay protection).
  if (typeof nonce !== "string" || !equalSecret(nonce, expect.nonce)) return { ok: false, reason: "nonce" };
  const sub = ownField(payload, "sub");
  // OIDC Core §2: sub is required, a non-empty string.
  if (typeof sub !== "string" || sub === "") return { ok: false, reason: "sub" };
  const email = ownField(payload, "email");
  const authTime = ownField(payload, "auth_time");
  return {
    ok: true,
    claims: {
      sub,
      email: typeof email === "string" ? email : undefined,
      emailVerified: ownField(payload, "email_verified") === true,
      // OIDC Core §2: auth_time is seconds since the epoch; a value beyond the skew in the future is ignored, not trusted.
      authTime:
        typeof authTime === "number" && Number.isFinite(authTime) && authTime * 1000 <= now + skew
          ? new Date(Math.min(authTime * 1000, now))
          : undefined,
    },
  };
}

/**
 * Parses an ID token, verifies its signature with a key from `keys` (OIDC Core §3.1.3.7 step 6) and checks
 * its claims. A malformed token is a `malformed` failure; a throw of `keys` (no key set) propagates.
 */
export async function verifyIDToken(token: string, keys: KeyFinder, expect: IDTokenExpectations): Promise<IDTokenResult> {
  const jwt = parseJWT(token);
  if (jwt === undefined) return { ok: false, reason: "malformed" };
  const candidates = await keys(jwt.kid, jwt.alg);
  if (!candidates.some((key) => verifyJWTSignature(jwt, key))) return { ok: false, reason: "signature" };
  return verifyIDTokenClaims(jwt.payload, expect);
}
