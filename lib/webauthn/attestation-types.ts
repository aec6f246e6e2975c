/*
 * Types shared by the attestation statement verifiers (one file per format).
 */
import type { X509Certificate } from "node:crypto";
import type { AttestedCredentialData, AuthenticatorData } from "./authenticator-data.ts";
import type { COSEPublicKey } from "./cose.ts";

/**
 * The attestation type a verified statement established (WebAuthn L3 §6.5.3):
 * "none", "self", "basic" (an x5c certificate path; Basic and AttCA are not
 * told apart), or "unverified" for a format latch does not verify, which is
 * then treated exactly like "none".
 */
export type AttestationType = "none" | "self" | "basic" | "unverified";

/** What a format's verification procedure receives. */
export interface AttestationInput {
  /** The attestation statement map. */
  attStmt: Map<unknown, unknown>;
  /** Raw authenticator data. */
  authDataBytes: Uint8Array;
  /** Parsed authenticator data. */
  authData: AuthenticatorData;
  /** Its attested credential data. */
  credential: AttestedCredentialData;
  /** SHA-256 of clientDataJSON. */
  clientDataHash: Uint8Array;
  /** The decoded credential public key. */
  credentialKey: COSEPublicKey;
}

/** What a format's verification procedure returns. */
export interface AttestationOutcome {
  /** Attestation type established. */
  type: AttestationType;
  /** The x5c certificates, leaf first (empty unless type is "basic"). */
  trustPath: X509Certificate[];
}
