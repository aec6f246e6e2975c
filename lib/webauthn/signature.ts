/*
 * Signature verification with a credential public key (WebAuthn L3 §6.5.5;
 * README "Algorithms"). ECDSA signatures are DER and authenticators do not
 * normalise them to low-S (WebAuthn does not require it), hence `lowS: false`.
 */
import { constants, createPublicKey, verify } from "node:crypto";
import type { KeyObject } from "node:crypto";
import { ed25519Curve, ed448Curve, nistCurves } from "./lazy-deps.ts";
import { ALGORITHMS } from "./algorithms.ts";
import { encodeBase64url } from "./base64url.ts";
import type { COSEPublicKey } from "./cose.ts";

function stripLeadingZeros(bytes: Uint8Array): Uint8Array {
  let i = 0;
  while (i < bytes.length - 1 && bytes[i] === 0) i++;
  return bytes.subarray(i);
}

function rsaKey(key: { n: Uint8Array; e: Uint8Array }): KeyObject {
  return createPublicKey({
    key: { kty: "RSA", n: encodeBase64url(stripLeadingZeros(key.n)), e: encodeBase64url(stripLeadingZeros(key.e)) },
    format: "jwk",
  });
}

/** Verifies an RSA signature with a node:crypto key for COSE algorithm `alg`. */
export function verifyRSA(alg: number, key: KeyObject, data: Uint8Array, signature: Uint8Array): boolean {
  const spec = ALGORITHMS.get(alg);
  if (spec === undefined || spec.kty !== "RSA") return false;
  if (spec.padding === "pss") {
    const options = { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST };
    return verify(spec.hash, data, options, signature);
  }
  return verify(spec.hash, data, key, signature);
}

/**
 * Reports whether `signature` is a valid signature over `data` by `key`
 * under the key's COSE algorithm. Never throws.
 */
export function verifySignature(key: COSEPublicKey, data: Uint8Array, signature: Uint8Array): boolean {
  try {
    switch (key.kty) {
      case "EC2": {
        const { p256, p384, p521 } = nistCurves();
        const curve = key.curve === "P-256" ? p256 : key.curve === "P-384" ? p384 : p521;
        return curve.verify(signature, data, key.point, { prehash: true, format: "der", lowS: false });
      }
      case "OKP":
        if (key.curve === "Ed25519") return ed25519Curve().verify(signature, data, key.x, { zip215: false });
        return ed448Curve().verify(signature, data, key.x);
      case "RSA":
        return verifyRSA(key.alg, rsaKey(key), data, signature);
    }
  } catch {
    return false;
  }
}
