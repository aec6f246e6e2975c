/*
 * COSE_Key public keys (RFC 9052 §7, RFC 9053 §7, RFC 8230 §4) as WebAuthn
 * L3 §6.5.1 embeds them, decoded from the exact bytes latch stores and
 * validated: EC points on the curve, EdDSA points decode, RSA 2048-8192 bits.
 */
import { ed25519Curve, ed448Curve, nistCurves } from "./lazy-deps.ts";
import { ALGORITHMS, COSE_CURVES } from "./algorithms.ts";
import type { Curve, KeyType } from "./algorithms.ts";
import { decodeCBOR } from "./cbor.ts";
import { ceremonyError } from "./errors.ts";

/** A decoded, validated credential public key. */
export type COSEPublicKey =
  | { kty: "EC2"; alg: number; curve: Curve; point: Uint8Array }
  | { kty: "OKP"; alg: number; curve: Curve; x: Uint8Array }
  | { kty: "RSA"; alg: number; n: Uint8Array; e: Uint8Array };

const FIELD_BYTES: Readonly<Record<string, number>> = { "P-256": 32, "P-384": 48, "P-521": 66, Ed25519: 32, Ed448: 57 };
const MIN_RSA_BITS = 2048;
const MAX_RSA_BITS = 8192;
// RFC 9053 §7, RFC 8230 §4: COSE key type labels.
const KTY: Readonly<Record<number, KeyType>> = { 1: "OKP", 2: "EC2", 3: "RSA" };

function bytesAt(map: Map<unknown, unknown>, label: number, step: string): Uint8Array {
  const value = map.get(label);
  if (!(value instanceof Uint8Array)) throw malformed(step, `label ${label} is not a byte string`);
  return new Uint8Array(value);
}

function malformed(step: string, reason: string): Error {
  return ceremonyError("ERR_PASSKEY_MALFORMED_PUBLIC_KEY", step, `credential public key: ${reason}`);
}

function bitLength(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length && bytes[i] === 0) i++;
  if (i === bytes.length) return 0;
  return (bytes.length - i - 1) * 8 + (32 - Math.clz32(bytes[i] ?? 0));
}

/**
 * Decodes and validates a COSE_Key. `step` names the ceremony step for
 * errors. Throws PasskeyError ERR_PASSKEY_MALFORMED_PUBLIC_KEY for a
 * malformed or invalid key and ERR_PASSKEY_ALGORITHM for an algorithm latch
 * does not implement.
 */
export function parseCOSEKey(bytes: Uint8Array, step: string): COSEPublicKey {
  const map = decodeCBOR(bytes, { code: "ERR_PASSKEY_MALFORMED_PUBLIC_KEY", step });
  if (!(map instanceof Map)) throw malformed(step, "not a CBOR map");
  const ktyLabel = map.get(1);
  const alg = map.get(3);
  // WebAuthn L3 §6.5.1: the COSE_Key MUST contain "alg".
  if (typeof ktyLabel !== "number" || typeof alg !== "number" || !Number.isSafeInteger(alg)) {
    throw malformed(step, "kty and alg must be integers");
  }
  const kty = KTY[ktyLabel];
  if (kty === undefined) throw malformed(step, "unknown kty");
  const spec = ALGORITHMS.get(alg);
  if (spec === undefined) throw ceremonyError("ERR_PASSKEY_ALGORITHM", step, `algorithm ${alg} is not supported`);
  if (spec.kty !== kty) throw malformed(step, `kty does not fit ${spec.name}`);
  if (kty === "RSA") {
    const n = bytesAt(map, -1, step);
    const e = bytesAt(map, -2, step);
    const bits = bitLength(n);
    if (bits < MIN_RSA_BITS || bits > MAX_RSA_BITS) throw malformed(step, `RSA modulus of ${bits} bits`);
    if (e.length === 0 || e.length > 8) throw malformed(step, "RSA exponent length");
    return { kty, alg, n, e };
  }
  const crvLabel = map.get(-1);
  const curve = typeof crvLabel === "number" ? COSE_CURVES[crvLabel] : undefined;
  if (curve === undefined || !spec.curves.includes(curve)) throw malformed(step, `curve does not fit ${spec.name}`);
  const size = FIELD_BYTES[curve] ?? 0;
  const x = bytesAt(map, -2, step);
  if (x.length !== size) throw malformed(step, "x has the wrong length");
  if (kty === "OKP") {
    try {
      if (curve === "Ed25519") ed25519Curve().Point.fromBytes(x);
      else ed448Curve().Point.fromBytes(x);
    } catch (e) {
      throw ceremonyError("ERR_PASSKEY_MALFORMED_PUBLIC_KEY", step, "credential public key: not a curve point", e);
    }
    return { kty, alg, curve, x };
  }
  const y = bytesAt(map, -3, step);
  if (y.length !== size) throw malformed(step, "y has the wrong length");
  // SEC 1 §2.3.3: the uncompressed point 0x04 ‖ x ‖ y.
  const point = Uint8Array.from([0x04, ...x, ...y]);
  try {
    const { p256, p384, p521 } = nistCurves();
    const nist = curve === "P-256" ? p256 : curve === "P-384" ? p384 : p521;
    nist.Point.fromBytes(point).assertValidity();
  } catch (e) {
    throw ceremonyError("ERR_PASSKEY_MALFORMED_PUBLIC_KEY", step, "credential public key: not a curve point", e);
  }
  return { kty, alg, curve, point };
}
