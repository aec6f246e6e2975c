/*
 * Attestation policy (WebAuthn L3 §7.1 steps 21-24). Verified formats:
 * "none" (§8.7: attStmt must be empty), "packed" (§8.2) and "fido-u2f"
 * (§8.6). Every other format (tpm, android-key, android-safetynet, apple, or
 * anything new) is accepted as "unverified" and treated as no attestation:
 * the credential key still comes from the client-bound authenticator data,
 * only provenance is unproven. A verified x5c path is checked against trust
 * anchors only when the caller supplies them; without anchors `trusted` is
 * false and nothing about the authenticator's make is claimed.
 */
import { verifyFidoU2F } from "./attestation-fido-u2f.ts";
import { verifyPacked } from "./attestation-packed.ts";
import type { AttestationInput, AttestationOutcome } from "./attestation-types.ts";
import { ceremonyError } from "./errors.ts";
import { verifyChain } from "./x509.ts";

/** Attestation formats whose statements latch verifies. */
export const VERIFIED_ATTESTATION_FORMATS: readonly string[] = ["none", "packed", "fido-u2f"];

/** Trust-anchor policy for x5c attestation. */
export interface AttestationTrust {
  /** Root certificates (DER). Empty: chains are not evaluated and `trusted` stays false. */
  trustAnchors: readonly Uint8Array[];
  /** Time at which certificate validity is checked. */
  now: Date;
}

/** The attestation verdict. */
export interface AttestationResult extends AttestationOutcome {
  /** True only when an x5c path was verified up to a configured trust anchor. */
  trusted: boolean;
}

/** Verifies the attestation statement of `fmt`. Throws PasskeyError naming the failed step. */
export function verifyAttestation(fmt: string, input: AttestationInput, trust: AttestationTrust): AttestationResult {
  let outcome: AttestationOutcome;
  // WebAuthn L3 §7.1 step 21: case-sensitive match of fmt against supported formats.
  switch (fmt) {
    case "none":
      // WebAuthn L3 §8.7: the none attestation statement is an empty map.
      if (input.attStmt.size !== 0) {
        throw ceremonyError("ERR_PASSKEY_ATTESTATION", "7.1 step 22: none attestation (§8.7)", "attStmt is not empty");
      }
      outcome = { type: "none", trustPath: [] };
      break;
    case "packed":
      outcome = verifyPacked(input);
      break;
    case "fido-u2f":
      outcome = verifyFidoU2F(input);
      break;
    default:
      outcome = { type: "unverified", trustPath: [] };
  }
  if (outcome.trustPath.length === 0 || trust.trustAnchors.length === 0) return { ...outcome, trusted: false };
  // WebAuthn L3 §7.1 step 24: the attestation key chains up to an acceptable root.
  if (!verifyChain(outcome.trustPath, trust.trustAnchors, trust.now)) {
    throw ceremonyError("ERR_PASSKEY_ATTESTATION_TRUST", "7.1 step 24: attestation trust", "x5c does not chain to a trust anchor");
  }
  return { ...outcome, trusted: true };
}
