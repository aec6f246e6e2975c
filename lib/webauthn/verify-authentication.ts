/*
 * The authentication ceremony, WebAuthn L3 §7.2 steps 5-22 (README
 * "Authentication"), on a response `parseAuthenticationResponse` parsed.
 * Step 23 (extensions) is ignored; the caller performs step 24 by storing
 * `newSignCount` and `backupState`.
 */
import { Buffer } from "node:buffer";
import { sha256, verifyAuthenticatorData } from "./checks.ts";
import { clientDataExpectations, verifyClientData, type CeremonyExpectations } from "./client-data.ts";
import { parseCOSEKey, type COSEPublicKey } from "./cose.ts";
import { ceremonyError } from "./errors.ts";
import type { AuthenticationResponse } from "./response.ts";
import { verifySignature } from "./signature.ts";
import type { SignatureVerifier } from "./signature-verifier.ts";

/** The stored credential record an assertion is checked against. */
export interface StoredCredential {
  /** Credential id, base64url. */
  id: string;
  /** Owner of the credential. */
  subject: string;
  /** COSE_Key bytes as stored at registration. */
  publicKey: Uint8Array;
  /** Last accepted signature counter. */
  signCount: number;
  /** BE flag recorded at registration. */
  backupEligible: boolean;
  /** The user handle (user.id) the credential was created for, when known. */
  userHandle?: Uint8Array | undefined;
}

/** What an authentication response must match. */
export interface AuthenticationExpectations extends CeremonyExpectations {
  /** The stored record for `response.id`. */
  credential: StoredCredential;
  /** The subject identified before the ceremony (session or pending row). When absent, a user handle is required. */
  expectedSubject?: string;
}

/** A verified assertion. */
export interface AuthenticationResult {
  /** Counter to store (step 24). */
  newSignCount: number;
  /** BS flag to store. */
  backupState: boolean;
  /** Whether the UV flag was set. */
  userVerified: boolean;
}

/**
 * Verifies a parsed assertion against `expect`. Throws PasskeyError (status
 * 400) whose `code` and `step` name the first failed check;
 * ERR_PASSKEY_INVALID_OPTIONS for a challenge shorter than 16 bytes;
 * ERR_PASSKEY_MALFORMED_PUBLIC_KEY if the stored key does not decode.
 *
 * @example
 * const response = parseAuthenticationResponse(await readJSON(req));
 * const credential = store.getCredential(response.id);
 * const result = verifyAuthentication(response, { challenge, origin, rpID, requireUserVerification: false,
 *   credential, expectedSubject: subject });
 * store.updateCounter(credential.id, result.newSignCount, result.backupState, new Date());
 */
export function verifyAuthentication(response: AuthenticationResponse, expect: AuthenticationExpectations): AuthenticationResult {
  const { key, signed } = beforeSignature(response, expect);
  return afterSignature(response, expect, verifySignature(key, signed, response.signature));
}

/**
 * `verifyAuthentication` with the signature checked by `verifier`: on the
 * event loop under low load, on a worker thread above it. Same checks,
 * same errors, same result.
 */
export async function verifyAuthenticationWith(
  verifier: SignatureVerifier,
  response: AuthenticationResponse,
  expect: AuthenticationExpectations,
): Promise<AuthenticationResult> {
  const { key, signed } = beforeSignature(response, expect);
  return afterSignature(response, expect, await verifier.verify(key, signed, response.signature));
}

// WebAuthn L3 §7.2 steps 5-20: everything before the signature; returns the key and the signed bytes.
function beforeSignature(response: AuthenticationResponse, expect: AuthenticationExpectations): { key: COSEPublicKey; signed: Uint8Array } {
  const clientData = clientDataExpectations(expect, "verify authentication");
  const record = expect.credential;
  // WebAuthn L3 §7.2 step 5: credential.id identifies the credential the RP looked up.
  if (response.id !== record.id) {
    throw ceremonyError("ERR_PASSKEY_CREDENTIAL_ID", "7.2 step 5: credential id", "response id differs from the stored credential");
  }
  if (expect.expectedSubject !== undefined) {
    // WebAuthn L3 §7.2 step 6 (user identified first): the account holds this credential.
    if (record.subject !== expect.expectedSubject) {
      throw ceremonyError("ERR_PASSKEY_CREDENTIAL_OWNER", "7.2 step 6: credential owner", "credential belongs to another account");
    }
  } else if (response.userHandle === undefined) {
    // WebAuthn L3 §7.2 step 6 (user not identified): userHandle is present.
    throw ceremonyError("ERR_PASSKEY_USER_HANDLE", "7.2 step 6: userHandle", "user handle missing");
  }
  if (response.userHandle !== undefined) {
    // WebAuthn L3 §7.2 step 6: a present userHandle equals the account's user handle.
    if (record.userHandle === undefined || Buffer.compare(response.userHandle, record.userHandle) !== 0) {
      throw ceremonyError("ERR_PASSKEY_USER_HANDLE", "7.2 step 6: userHandle", "user handle does not match the account");
    }
  }
  verifyClientData(response.clientData, clientData, "authentication");
  const authData = response.authenticatorData;
  verifyAuthenticatorData(authData, expect, "authentication");
  // WebAuthn L3 §7.2 step 19.1-19.2: BE is a fixed property of the credential.
  if (authData.flags.backupEligible !== record.backupEligible) {
    throw ceremonyError("ERR_PASSKEY_BACKUP_FLAGS", "7.2 step 19: BE", "backup eligibility differs from registration");
  }
  // WebAuthn L3 §7.2 step 20: hash is SHA-256 of cData.
  const hash = sha256(response.clientDataJSON);
  const key = parseCOSEKey(record.publicKey, "7.2 step 21: signature");
  return { key, signed: Buffer.concat([response.authenticatorDataBytes, hash]) };
}

// WebAuthn L3 §7.2 steps 21-22, given whether the signature verified.
function afterSignature(response: AuthenticationResponse, expect: AuthenticationExpectations, valid: boolean): AuthenticationResult {
  const authData = response.authenticatorData;
  const record = expect.credential;
  // WebAuthn L3 §7.2 step 21: sig verifies over authData ‖ hash with the stored public key.
  if (!valid) {
    throw ceremonyError("ERR_PASSKEY_SIGNATURE", "7.2 step 21: signature", "signature does not verify");
  }
  // WebAuthn L3 §7.2 step 22 (§6.1.1): if either counter is non-zero the new one must be greater.
  if ((authData.signCount !== 0 || record.signCount !== 0) && authData.signCount <= record.signCount) {
    throw ceremonyError("ERR_PASSKEY_SIGN_COUNT", "7.2 step 22: signCount", "signature counter did not increase");
  }
  return { newSignCount: authData.signCount, backupState: authData.flags.backupState, userVerified: authData.flags.userVerified };
}
