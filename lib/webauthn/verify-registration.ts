/*
 * The registration ceremony, WebAuthn L3 §7.1 steps 7-27 (README
 * "Registration"), on a response `parseRegistrationResponse` parsed. Steps
 * 18-19 (BE/BS as policy) and 28 (extensions) have nothing to check.
 */
import { Buffer } from "node:buffer";
import { DEFAULT_ALGORITHMS } from "./algorithms.ts";
import { verifyAttestation, type AttestationType } from "./attestation.ts";
import { MAX_CREDENTIAL_ID_BYTES } from "./authenticator-data.ts";
import { encodeBase64url } from "./base64url.ts";
import { sha256, verifyAuthenticatorData } from "./checks.ts";
import { clientDataExpectations, verifyClientData, type CeremonyExpectations } from "./client-data.ts";
import { parseCOSEKey } from "./cose.ts";
import { ceremonyError } from "./errors.ts";
import type { RegistrationResponse } from "./response.ts";

/** What a registration response must match. */
export interface RegistrationExpectations extends CeremonyExpectations {
  /** Allowed COSE algorithms (the pubKeyCredParams sent). @default DEFAULT_ALGORITHMS */
  algorithms?: readonly number[];
  /** Reports whether a credential id (base64url) is already registered to anyone. @default () => false */
  isCredentialIDTaken?: (id: string) => boolean;
  /** Attestation root certificates (DER). @default [] (attestation chains are not evaluated) */
  trustAnchors?: readonly Uint8Array[];
  /** Time at which attestation certificates must be valid. @default new Date() */
  now?: Date;
}

/** A verified new credential, ready to store. */
export interface RegisteredCredential {
  /** Credential id, base64url. */
  id: string;
  /** The COSE_Key exactly as the authenticator encoded it. */
  publicKey: Uint8Array;
  /** COSE algorithm identifier of the key. */
  algorithm: number;
  /** Initial signature counter. */
  signCount: number;
  /** Transports reported by the client. */
  transports: string[];
  /** BE flag. */
  backupEligible: boolean;
  /** BS flag. */
  backupState: boolean;
  /** UV flag at registration (the credential record's uvInitialized). */
  userVerified: boolean;
  /** Attestation statement format, e.g. "none", "packed". */
  attestationFormat: string;
  /** Attestation type established; "unverified" for formats latch does not verify. */
  attestationType: AttestationType;
  /** True when an attestation signature (self or x5c) was verified. */
  attested: boolean;
  /** True when the x5c path was verified to a configured trust anchor. */
  attestationTrusted: boolean;
  /** The authenticator's AAGUID as a UUID string. */
  aaguid: string;
}

function formatUUID(bytes: Uint8Array): string {
  return Buffer.from(bytes)
    .toString("hex")
    .replace(/^(.{8})(.{4})(.{4})(.{4})/, "$1-$2-$3-$4-");
}

/**
 * Verifies a parsed registration response against `expect` and returns the
 * credential to store. Throws PasskeyError (status 400) whose `code` and
 * `step` name the first failed check; ERR_PASSKEY_INVALID_OPTIONS for a
 * challenge shorter than 16 bytes.
 *
 * @example
 * const response = parseRegistrationResponse(await readJSON(req));
 * const cred = verifyRegistration(response, { challenge, origin: "https://example.org",
 *   rpID: "example.org", requireUserVerification: false, isCredentialIDTaken: (id) => store.getCredential(id) !== undefined });
 */
export function verifyRegistration(response: RegistrationResponse, expect: RegistrationExpectations): RegisteredCredential {
  verifyClientData(response.clientData, clientDataExpectations(expect, "verify registration"), "registration");
  // WebAuthn L3 §7.1 step 12: hash is SHA-256 of clientDataJSON.
  const clientDataHash = sha256(response.clientDataJSON);
  const { authData, authDataBytes, fmt, attStmt } = response.attestation;
  verifyAuthenticatorData(authData, expect, "registration");
  const credential = authData.attestedCredentialData;
  if (credential === undefined) {
    throw ceremonyError("ERR_PASSKEY_MALFORMED_AUTHENTICATOR_DATA", "6.1: authenticator data", "attested credential data missing");
  }
  const key = parseCOSEKey(credential.publicKey, "7.1 step 20: alg");
  // WebAuthn L3 §7.1 step 20: the key's alg is one of pubKeyCredParams.
  if (!(expect.algorithms ?? DEFAULT_ALGORITHMS).includes(key.alg)) {
    throw ceremonyError("ERR_PASSKEY_ALGORITHM", "7.1 step 20: alg", `algorithm ${key.alg} is not allowed`);
  }
  const trust = { trustAnchors: expect.trustAnchors ?? [], now: expect.now ?? new Date() };
  const input = { attStmt, authDataBytes, authData, credential, clientDataHash, credentialKey: key };
  const attestation = verifyAttestation(fmt, input, trust);
  // WebAuthn L3 §7.1 step 25: credentialId is at most 1023 bytes.
  if (credential.credentialId.length > MAX_CREDENTIAL_ID_BYTES) {
    throw ceremonyError("ERR_PASSKEY_CREDENTIAL_ID", "7.1 step 25: credentialId", "credential id longer than 1023 bytes");
  }
  const id = encodeBase64url(credential.credentialId);
  // WebAuthn L3 §7.1 step 27: the record's id is credential.id, which must name the attested credential.
  if (id !== response.id) {
    throw ceremonyError("ERR_PASSKEY_CREDENTIAL_ID", "7.1 step 27: credential id", "response id differs from the attested credential id");
  }
  // WebAuthn L3 §7.1 step 26: the credential id is not yet registered for any user.
  if (expect.isCredentialIDTaken?.(id) === true) {
    throw ceremonyError("ERR_PASSKEY_CREDENTIAL_TAKEN", "7.1 step 26: credentialId", "credential id is already registered");
  }
  return {
    id,
    publicKey: credential.publicKey,
    algorithm: key.alg,
    signCount: authData.signCount,
    transports: response.transports,
    backupEligible: authData.flags.backupEligible,
    backupState: authData.flags.backupState,
    userVerified: authData.flags.userVerified,
    attestationFormat: fmt,
    attestationType: attestation.type,
    attested: attestation.type === "self" || attestation.type === "basic",
    attestationTrusted: attestation.trusted,
    aaguid: formatUUID(credential.aaguid),
  };
}
