/* The attestation object (WebAuthn L3 §6.5.4): a CBOR map of "fmt" (text), "authData" (bytes) and "attStmt" (map). */
import { parseAuthenticatorData } from "./authenticator-data.ts";
import type { AuthenticatorData } from "./authenticator-data.ts";
import { decodeCBOR } from "./cbor.ts";
import { ceremonyError } from "./errors.ts";

/** A decoded attestation object. */
export interface AttestationObject {
  /** Attestation statement format identifier. */
  fmt: string;
  /** The attestation statement, keys as decoded. */
  attStmt: Map<unknown, unknown>;
  /** Raw authenticator data (signed by the attestation). */
  authDataBytes: Uint8Array;
  /** Parsed authenticator data. */
  authData: AuthenticatorData;
}

const STEP = "7.1 step 13: attestationObject";

function malformed(reason: string): Error {
  return ceremonyError("ERR_PASSKEY_MALFORMED_ATTESTATION_OBJECT", STEP, reason);
}

/** Decodes an attestation object. Throws PasskeyError ERR_PASSKEY_MALFORMED_ATTESTATION_OBJECT. */
export function parseAttestationObject(bytes: Uint8Array): AttestationObject {
  // WebAuthn L3 §7.1 step 13: CBOR-decode to obtain fmt, authData and attStmt.
  const value = decodeCBOR(bytes, { code: "ERR_PASSKEY_MALFORMED_ATTESTATION_OBJECT", step: STEP });
  if (!(value instanceof Map)) throw malformed("attestation object is not a map");
  const fmt = value.get("fmt");
  const authData = value.get("authData");
  const attStmt = value.get("attStmt");
  if (typeof fmt !== "string" || !(authData instanceof Uint8Array) || !(attStmt instanceof Map))
    throw malformed("fmt, authData or attStmt has the wrong type");
  const authDataBytes = new Uint8Array(authData);
  const parsed = parseAuthenticatorData(authDataBytes);
  if (parsed.attestedCredentialData === undefined) {
    // WebAuthn L3 §6.5.1: registration authenticator data carries attested credential data.
    throw ceremonyError("ERR_PASSKEY_MALFORMED_AUTHENTICATOR_DATA", "6.1: authenticator data", "attested credential data missing");
  }
  return { fmt, attStmt, authDataBytes, authData: parsed };
}
