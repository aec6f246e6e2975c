/*
 * Compact JWS (RFC 7515 §7.1) parsing, then verification with one key, for RS256 (RFC 7518 §3.3), ES256
 * (§3.4, raw r||s) and EdDSA over Ed25519 (RFC 8037 §3.1; "Ed25519" names the same algorithm).
 */
import { verify, type KeyObject } from "node:crypto";
import { ownField } from "../../internal/index.ts";

/** The signature algorithms accepted in ID tokens; "none" and HMAC are never accepted. */
export const JWS_ALGORITHMS: readonly JWSAlgorithm[] = ["RS256", "ES256", "EdDSA", "Ed25519"];

/** A supported signature algorithm. */
export type JWSAlgorithm = "RS256" | "ES256" | "EdDSA" | "Ed25519";

/** Smallest RSA modulus accepted, in bits (RFC 7518 §3.3: 2048 or larger). */
export const MIN_RSA_BITS: number = 2048;

/** A parsed compact JWS whose header is understood; the signature is not yet checked. */
export interface ParsedJWT {
  alg: JWSAlgorithm;
  kid: string | undefined;
  /** The decoded payload, a JSON object. */
  payload: object;
  /** ASCII(BASE64URL(header) "." BASE64URL(payload)), the bytes that were signed. */
  signingInput: Buffer;
  signature: Buffer;
}

const BASE64URL = /^[A-Za-z0-9_-]*$/;

function decodePart(part: string): Buffer | undefined {
  if (!BASE64URL.test(part)) return undefined;
  const bytes = Buffer.from(part, "base64url");
  // RFC 7515 §2: base64url without padding; refuse non-canonical encodings.
  return bytes.toString("base64url") === part ? bytes : undefined;
}

function decodeObject(part: string): object | undefined {
  const bytes = decodePart(part);
  if (bytes === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(bytes.toString("utf8"));
    return typeof value === "object" && value !== null && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function isAlgorithm(value: unknown): value is JWSAlgorithm {
  return JWS_ALGORITHMS.some((alg) => alg === value);
}

/**
 * Parses a compact JWS. Returns `undefined` when it is not three base64url
 * parts, a part is not a JSON object, the algorithm is not supported, or
 * the header carries `crit` (RFC 7515 §4.1.11: no extension is understood here).
 */
export function parseJWT(token: string): ParsedJWT | undefined {
  const parts = token.split(".");
  const [h, p, s] = parts;
  if (parts.length !== 3 || h === undefined || p === undefined || s === undefined) return undefined;
  const header = decodeObject(h);
  const payload = decodeObject(p);
  const signature = decodePart(s);
  if (header === undefined || payload === undefined || signature === undefined) return undefined;
  const alg = ownField(header, "alg");
  const kid = ownField(header, "kid");
  if (!isAlgorithm(alg) || (kid !== undefined && typeof kid !== "string") || Object.hasOwn(header, "crit")) return undefined;
  return { alg, kid, payload, signingInput: Buffer.from(`${h}.${p}`, "ascii"), signature };
}

/** Reports whether `key` is of the type (and size or curve) that `alg` requires. */
export function isKeyForAlgorithm(key: KeyObject, alg: JWSAlgorithm): boolean {
  if (key.type !== "public") return false;
  const details = key.asymmetricKeyDetails;
  switch (alg) {
    case "RS256":
      return key.asymmetricKeyType === "rsa" && (details?.modulusLength ?? 0) >= MIN_RSA_BITS;
    case "ES256":
      return key.asymmetricKeyType === "ec" && details?.namedCurve === "prime256v1";
    case "EdDSA":
    case "Ed25519":
      return key.asymmetricKeyType === "ed25519";
  }
}

/**
 * Reports whether the JWS signature verifies with `key`. A key of the
 * wrong type for the algorithm never verifies (RFC 8725 §3.1: the
 * algorithm and the key must agree).
 */
export function verifyJWTSignature(jwt: ParsedJWT, key: KeyObject): boolean {
  if (!isKeyForAlgorithm(key, jwt.alg)) return false;
  try {
    switch (jwt.alg) {
      case "RS256":
        return verify("sha256", jwt.signingInput, key, jwt.signature);
      case "ES256":
        // RFC 7518 §3.4: R and S are 32 bytes each, concatenated.
        if (jwt.signature.length !== 64) return false;
        return verify("sha256", jwt.signingInput, { key, dsaEncoding: "ieee-p1363" }, jwt.signature);
      case "EdDSA":
      case "Ed25519":
        return verify(null, jwt.signingInput, key, jwt.signature);
    }
  } catch {
    // node:crypto throws on signatures of an impossible length; that is a failed verification.
    return false;
  }
}
