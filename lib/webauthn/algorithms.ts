/*
 * The COSE signature algorithms latch verifies (IANA "COSE Algorithms"), each
 * bound to its key type and curves as WebAuthn L3 §5.8.5 and RFC 9053 / RFC
 * 8230 / RFC 9864 define them (README "Algorithms").
 */

/** A COSE key type name. */
export type KeyType = "EC2" | "OKP" | "RSA";

/** A supported curve name. */
export type Curve = "P-256" | "P-384" | "P-521" | "Ed25519" | "Ed448";

/** How one COSE algorithm identifier is verified. */
export interface AlgorithmSpec {
  /** JOSE-style name, e.g. "ES256". */
  name: string;
  /** Required COSE key type. */
  kty: KeyType;
  /** Curves the key may use (EC2 and OKP only). */
  curves: readonly Curve[];
  /** Digest for ECDSA and RSA; unused for EdDSA. */
  hash: "sha256" | "sha384" | "sha512";
  /** RSA padding. */
  padding: "pkcs1" | "pss" | undefined;
}

/** COSE algorithm identifier → verification rule. */
export const ALGORITHMS: ReadonlyMap<number, AlgorithmSpec> = new Map<number, AlgorithmSpec>([
  [-7, { name: "ES256", kty: "EC2", curves: ["P-256"], hash: "sha256", padding: undefined }],
  [-35, { name: "ES384", kty: "EC2", curves: ["P-384"], hash: "sha384", padding: undefined }],
  [-36, { name: "ES512", kty: "EC2", curves: ["P-521"], hash: "sha512", padding: undefined }],
  [-8, { name: "EdDSA", kty: "OKP", curves: ["Ed25519", "Ed448"], hash: "sha512", padding: undefined }],
  [-19, { name: "Ed25519", kty: "OKP", curves: ["Ed25519"], hash: "sha512", padding: undefined }],
  [-53, { name: "Ed448", kty: "OKP", curves: ["Ed448"], hash: "sha512", padding: undefined }],
  [-257, { name: "RS256", kty: "RSA", curves: [], hash: "sha256", padding: "pkcs1" }],
  [-258, { name: "RS384", kty: "RSA", curves: [], hash: "sha384", padding: "pkcs1" }],
  [-259, { name: "RS512", kty: "RSA", curves: [], hash: "sha512", padding: "pkcs1" }],
  [-37, { name: "PS256", kty: "RSA", curves: [], hash: "sha256", padding: "pss" }],
  [-38, { name: "PS384", kty: "RSA", curves: [], hash: "sha384", padding: "pss" }],
  [-39, { name: "PS512", kty: "RSA", curves: [], hash: "sha512", padding: "pss" }],
]);

/** Every algorithm identifier latch can verify. */
export const SUPPORTED_ALGORITHMS: readonly number[] = [...ALGORITHMS.keys()];

/**
 * The default `pubKeyCredParams` order and registration allow-list:
 * EdDSA (-8), ES256 (-7), RS256 (-257).
 */
export const DEFAULT_ALGORITHMS: readonly number[] = [-8, -7, -257];

/** COSE curve identifier (RFC 9053 §7.1) → curve name. */
export const COSE_CURVES: Readonly<Record<number, Curve>> = { 1: "P-256", 2: "P-384", 3: "P-521", 6: "Ed25519", 7: "Ed448" };
