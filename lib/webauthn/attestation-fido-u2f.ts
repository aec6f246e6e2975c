/*
 * The "fido-u2f" attestation statement format, verification procedure of
 * WebAuthn L3 §8.6: one P-256 certificate, and a signature over
 * 0x00 ‖ rpIdHash ‖ clientDataHash ‖ credentialId ‖ 0x04 ‖ x ‖ y.
 */
import { Buffer } from "node:buffer";
import { parseX5C } from "./attestation-packed.ts";
import type { AttestationInput, AttestationOutcome } from "./attestation-types.ts";
import { ceremonyError } from "./errors.ts";
import { verifyWithCertificate } from "./x509.ts";

const STEP = "7.1 step 22: fido-u2f attestation (§8.6)";

function fail(reason: string): Error {
  return ceremonyError("ERR_PASSKEY_ATTESTATION", STEP, reason);
}

/** Verifies a fido-u2f attestation statement. Throws PasskeyError ERR_PASSKEY_ATTESTATION. */
export function verifyFidoU2F(input: AttestationInput): AttestationOutcome {
  const sig = input.attStmt.get("sig");
  if (!(sig instanceof Uint8Array)) throw fail("sig missing");
  const chain = parseX5C(input.attStmt.get("x5c"), STEP);
  const cert = chain[0];
  // WebAuthn L3 §8.6 step 2: x5c has exactly one element.
  if (cert === undefined || chain.length !== 1) throw fail("x5c must hold exactly one certificate");
  const key = input.credentialKey;
  // WebAuthn L3 §8.6 step 4: the credential key is an uncompressed P-256 point (x and y of 32 bytes).
  if (key.kty !== "EC2" || key.curve !== "P-256") throw fail("credential key is not P-256");
  const data = Buffer.concat([
    Uint8Array.of(0x00),
    input.authData.rpIdHash,
    input.clientDataHash,
    input.credential.credentialId,
    key.point,
  ]);
  // WebAuthn L3 §8.6 steps 2 and 6: the certificate key is P-256 and sig verifies (ECDSA, SHA-256).
  if (!verifyWithCertificate(-7, cert, data, sig)) throw fail("attestation signature does not verify");
  return { type: "basic", trustPath: chain };
}
