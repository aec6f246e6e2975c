/*
 * The "packed" attestation statement format, verification procedure of
 * WebAuthn L3 §8.2: with x5c, the signature is checked against the leaf
 * certificate's key and the leaf against §8.2.1; without x5c, it is self
 * attestation checked with the credential key itself.
 */
import { Buffer } from "node:buffer";
import type { X509Certificate } from "node:crypto";
import type { AttestationInput, AttestationOutcome } from "./attestation-types.ts";
import { ceremonyError } from "./errors.ts";
import { verifySignature } from "./signature.ts";
import { OID_FIDO_AAGUID, parseCertificate, readAAGUIDExtension, readCertificateFields, verifyWithCertificate } from "./x509.ts";

const STEP = "7.1 step 22: packed attestation (§8.2)";

/** Most certificates accepted in an x5c array. */
export const MAX_X5C_CERTIFICATES = 8;

function fail(reason: string): Error {
  return ceremonyError("ERR_PASSKEY_ATTESTATION", STEP, reason);
}

/** Parses an x5c array into certificates; throws PasskeyError ERR_PASSKEY_ATTESTATION. */
export function parseX5C(value: unknown, step: string): X509Certificate[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_X5C_CERTIFICATES) {
    throw ceremonyError("ERR_PASSKEY_ATTESTATION", step, "x5c is not a short non-empty array");
  }
  const certs: X509Certificate[] = [];
  for (const der of value) {
    const cert = der instanceof Uint8Array ? parseCertificate(der) : undefined;
    if (cert === undefined) throw ceremonyError("ERR_PASSKEY_ATTESTATION", step, "x5c holds something that is not a certificate");
    certs.push(cert);
  }
  return certs;
}

/** Verifies a packed attestation statement. Throws PasskeyError ERR_PASSKEY_ATTESTATION. */
export function verifyPacked(input: AttestationInput): AttestationOutcome {
  const alg = input.attStmt.get("alg");
  const sig = input.attStmt.get("sig");
  // WebAuthn L3 §8.2: attStmt is { alg: int, sig: bytes, x5c?: [bytes] }.
  if (typeof alg !== "number" || !(sig instanceof Uint8Array)) throw fail("alg or sig missing");
  const signed = Buffer.concat([input.authDataBytes, input.clientDataHash]);
  if (!input.attStmt.has("x5c")) {
    // WebAuthn L3 §8.2 (self attestation): alg matches the credential key's alg.
    if (alg !== input.credentialKey.alg) throw fail("alg differs from the credential key's");
    // WebAuthn L3 §8.2 (self attestation): sig verifies with the credential public key.
    if (!verifySignature(input.credentialKey, signed, sig)) throw fail("self-attestation signature does not verify");
    return { type: "self", trustPath: [] };
  }
  const chain = parseX5C(input.attStmt.get("x5c"), STEP);
  const leaf = chain[0];
  if (leaf === undefined) throw fail("x5c is empty");
  // WebAuthn L3 §8.2: sig verifies over authenticatorData ‖ clientDataHash with the leaf's key and alg.
  if (!verifyWithCertificate(alg, leaf, signed, sig)) throw fail("attestation signature does not verify with the leaf certificate");
  const fields = readCertificateFields(new Uint8Array(leaf.raw));
  // WebAuthn L3 §8.2.1: the attestation certificate is X.509 version 3.
  if (fields === undefined || fields.version !== 3) throw fail("leaf certificate is not X.509 v3");
  // WebAuthn L3 §8.2.1: Basic Constraints CA is false.
  if (leaf.ca) throw fail("leaf certificate is a CA");
  const ext = fields.extensions.get(OID_FIDO_AAGUID);
  if (ext !== undefined) {
    const aaguid = readAAGUIDExtension(ext.value);
    // WebAuthn L3 §8.2.1: the AAGUID extension is not critical and equals authData's aaguid.
    if (ext.critical || aaguid === undefined || Buffer.compare(aaguid, input.credential.aaguid) !== 0) {
      throw fail("leaf certificate AAGUID extension does not match the authenticator data");
    }
  }
  return { type: "basic", trustPath: chain };
}
