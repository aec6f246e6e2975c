/*
 * Verifying an assertion (WebAuthn L3 §7.2) against a stored credential of
 * the expected person, and moving its signature counter: the half that
 * step-up and the sign-in second factor share.
 */
import {
  PasskeyError,
  parseAuthenticationResponse,
  verifyAuthenticationWith,
  type CeremonyExpectations,
  type SignatureVerifier,
} from "../webauthn/index.ts";
import type { PasskeyStore } from "./store.ts";

/** Verifies the assertion `body` by `subject` against `expected`; updates the credential's counter. Throws `PasskeyError` when refused. */
export async function verifyAssertion(
  store: PasskeyStore,
  verifier: SignatureVerifier,
  body: unknown,
  expected: CeremonyExpectations,
  subject: string,
  now: Date,
): Promise<void> {
  const response = parseAuthenticationResponse(body);
  const stored = store.getCredential(response.id);
  // WebAuthn L3 §7.2 step 5: the credential must be one of the subject's; an unknown id opens nothing.
  if (stored === undefined) {
    throw new PasskeyError("ERR_PASSKEY_CREDENTIAL_OWNER", "passkey: unknown credential", { step: "7.2 step 5: credential", status: 400 });
  }
  const result = await verifyAuthenticationWith(verifier, response, { ...expected, credential: stored, expectedSubject: subject });
  // WebAuthn L3 §7.2 step 22: another assertion may have moved the counter while this signature was checked; compare again.
  const current = store.getCredential(response.id);
  if (current === undefined || ((result.newSignCount !== 0 || current.signCount !== 0) && result.newSignCount <= current.signCount)) {
    throw new PasskeyError("ERR_PASSKEY_SIGN_COUNT", "passkey: 7.2 step 22: signCount: signature counter did not increase", {
      step: "7.2 step 22: signCount",
      status: 400,
    });
  }
  store.updateCounter(response.id, result.newSignCount, result.backupState, now);
}
