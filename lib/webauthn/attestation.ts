/*
 * Attestation (WebAuthn L3 §7.1 steps 21-24): the verified formats "none"
 * (§8.7), "packed" (§8.2) and "fido-u2f" (§8.6), every other format accepted
 * as "unverified", and x5c paths checked only against caller-supplied trust
 * anchors. The policy and why: README "Attestation policy".
 */
import { Buffer } from "node:buffer";
import type { X509Certificate } from "node:crypto";
import type { AttestedCredentialData, AuthenticatorData } from "./authenticator-data.ts";
import type { COSEPublicKey } from "./cose.ts";
import { ceremonyError } from "./errors.ts";
import { verifySignature } from "./signature.ts";
import {
  OID_FIDO_AAGUID,
  parseCertificate,
  readAAGUIDExtension,
  readCertificateFields,
  verifyChain,
  verifyWithCertificate,
} from "./x509.ts";

/** Attestation formats whose statements latch verifies. */
export const VERIFIED_ATTESTATION_FORMATS: readonly string[] = ["none", "packed", "fido-u2f"];

/** Most certificates accepted in an x5c array. */
export const MAX_X5C_CERTIFICATES = 8;

/**
 * The attestation type a verified statement established (WebAuthn L3 §6.5.3):
 * "none", "self", "basic" (an x5c certificate path; Basic and AttCA are not
 * told apart), or "unverified" for a format latch does not verify, which is
 * then treated exactly like "none".
 */
export type AttestationType = "none" | "self" | "basic" | "unverified";

/** What a format's verification procedure receives. */
export interface AttestationInput {
  attStmt: Map<unknown, unknown>;
  /** Raw authenticator data (what packed signs) and its parsed form. */
  authDataBytes: Uint8Array;
  authData: AuthenticatorData;
  credential: AttestedCredentialData;
  /** SHA-256 of clientDataJSON. */
  clientDataHash: Uint8Array;
  credentialKey: COSEPublicKey;
}

/** The attestation verdict. */
export interface AttestationResult {
  /** Attestation type established. */
  type: AttestationType;
  /** The x5c certificates, leaf first (empty unless type is "basic"). */
  trustPath: X509Certificate[];
  /** True only when an x5c path was verified up to a configured trust anchor. */
  trusted: boolean;
}

/** Trust-anchor policy for x5c attestation. */
export interface AttestationTrust {
  /** Root certificates (DER). Empty: chains are not evaluated and `trusted` stays false. */
  trustAnchors: readonly Uint8Array[];
  /** Time at which certificate validity is checked. */
  now: Date;
}

type Outcome = Omit<AttestationResult, "trusted">;

const NONE_STEP = "7.1 step 22: none attestation (§8.7)";
const PACKED_STEP = "7.1 step 22: packed attestation (§8.2)";
const U2F_STEP = "7.1 step 22: fido-u2f attestation (§8.6)";

function fail(step: string, reason: string): Error {
  return ceremonyError("ERR_PASSKEY_ATTESTATION", step, reason);
}

/** Verifies the attestation statement of `fmt`. Throws PasskeyError naming the failed step. */
export function verifyAttestation(fmt: string, input: AttestationInput, trust: AttestationTrust): AttestationResult {
  let outcome: Outcome = { type: "unverified", trustPath: [] };
  // WebAuthn L3 §7.1 step 21: case-sensitive match of fmt against supported formats.
  if (fmt === "none") {
    // WebAuthn L3 §8.7: the none attestation statement is an empty map.
    if (input.attStmt.size !== 0) throw fail(NONE_STEP, "attStmt is not empty");
    outcome = { type: "none", trustPath: [] };
  } else if (fmt === "packed") outcome = verifyPacked(input);
  else if (fmt === "fido-u2f") outcome = verifyFidoU2F(input);
  if (outcome.trustPath.length === 0 || trust.trustAnchors.length === 0) return { ...outcome, trusted: false };
  // WebAuthn L3 §7.1 step 24: the attestation key chains up to an acceptable root.
  if (!verifyChain(outcome.trustPath, trust.trustAnchors, trust.now)) {
    throw ceremonyError("ERR_PASSKEY_ATTESTATION_TRUST", "7.1 step 24: attestation trust", "x5c does not chain to a trust anchor");
  }
  return { ...outcome, trusted: true };
}

function parseX5C(value: unknown, step: string): X509Certificate[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_X5C_CERTIFICATES) {
    throw fail(step, "x5c is not a short non-empty array");
  }
  return value.map((der: unknown) => {
    const cert = der instanceof Uint8Array ? parseCertificate(der) : undefined;
    if (cert === undefined) throw fail(step, "x5c holds something that is not a certificate");
    return cert;
  });
}

function verifyPacked(input: AttestationInput): Outcome {
  const alg = input.attStmt.get("alg");
  const sig = input.attStmt.get("sig");
  // WebAuthn L3 §8.2: attStmt is { alg: int, sig: bytes, x5c?: [bytes] }.
  if (typeof alg !== "number" || !(sig instanceof Uint8Array)) throw fail(PACKED_STEP, "alg or sig missing");
  const signed = Buffer.concat([input.authDataBytes, input.clientDataHash]);
  if (!input.attStmt.has("x5c")) {
    // WebAuthn L3 §8.2 (self attestation): alg matches the credential key's alg.
    if (alg !== input.credentialKey.alg) throw fail(PACKED_STEP, "alg differs from the credential key's");
    // WebAuthn L3 §8.2 (self attestation): sig verifies with the credential public key.
    if (!verifySignature(input.credentialKey, signed, sig)) throw fail(PACKED_STEP, "self-attestation signature does not verify");
    return { type: "self", trustPath: [] };
  }
  const chain = parseX5C(input.attStmt.get("x5c"), PACKED_STEP);
  const leaf = chain[0];
  if (leaf === undefined) throw fail(PACKED_STEP, "x5c is empty");
  // WebAuthn L3 §8.2: sig verifies over authenticatorData ‖ clientDataHash with the leaf's key and alg.
  if (!verifyWithCertificate(alg, leaf, signed, sig)) {
    throw fail(PACKED_STEP, "attestation signature does not verify with the leaf certificate");
  }
  const fields = readCertificateFields(new Uint8Array(leaf.raw));
  // WebAuthn L3 §8.2.1: the attestation certificate is X.509 version 3.
  if (fields === undefined || fields.version !== 3) throw fail(PACKED_STEP, "leaf certificate is not X.509 v3");
  // WebAuthn L3 §8.2.1: Basic Constraints CA is false.
  if (leaf.ca) throw fail(PACKED_STEP, "leaf certificate is a CA");
  const ext = fields.extensions.get(OID_FIDO_AAGUID);
  const aaguid = ext === undefined ? undefined : readAAGUIDExtension(ext.value);
  // WebAuthn L3 §8.2.1: the AAGUID extension is not critical and equals authData's aaguid.
  if (ext !== undefined && (ext.critical || aaguid === undefined || Buffer.compare(aaguid, input.credential.aaguid) !== 0)) {
    throw fail(PACKED_STEP, "leaf certificate AAGUID extension does not match the authenticator data");
  }
  return { type: "basic", trustPath: chain };
}

// WebAuthn L3 §8.6: one P-256 certificate; sig over 0x00 ‖ rpIdHash ‖ clientDataHash ‖ credentialId ‖ 0x04 ‖ x ‖ y.
function verifyFidoU2F(input: AttestationInput): Outcome {
  const sig = input.attStmt.get("sig");
  if (!(sig instanceof Uint8Array)) throw fail(U2F_STEP, "sig missing");
  const chain = parseX5C(input.attStmt.get("x5c"), U2F_STEP);
  const cert = chain[0];
  // WebAuthn L3 §8.6 step 2: x5c has exactly one element.
  if (cert === undefined || chain.length !== 1) throw fail(U2F_STEP, "x5c must hold exactly one certificate");
  const key = input.credentialKey;
  // WebAuthn L3 §8.6 step 4: the credential key is an uncompressed P-256 point (x and y of 32 bytes).
  if (key.kty !== "EC2" || key.curve !== "P-256") throw fail(U2F_STEP, "credential key is not P-256");
  const { rpIdHash } = input.authData;
  const data = Buffer.concat([Uint8Array.of(0x00), rpIdHash, input.clientDataHash, input.credential.credentialId, key.point]);
  // WebAuthn L3 §8.6 steps 2 and 6: the certificate key is P-256 and sig verifies (ECDSA, SHA-256).
  if (!verifyWithCertificate(-7, cert, data, sig)) throw fail(U2F_STEP, "attestation signature does not verify");
  return { type: "basic", trustPath: chain };
}
