/*
 * The codes of WebAuthn verification and of the passkey component, one table.
 * A failed ceremony is a thrown `PasskeyError` (status 400) whose `step` names
 * the WebAuthn L3 check that refused it (why a throw: README, first list).
 */
import { LatchError } from "../http/index.ts";
import { hasErrorCode } from "../internal/index.ts";

/** The WebAuthn and passkey error codes, each equal to its key. */
export const PASSKEY_ERROR_CODES = {
  ERR_PASSKEY_MALFORMED_CREDENTIAL: "ERR_PASSKEY_MALFORMED_CREDENTIAL",
  ERR_PASSKEY_MALFORMED_CLIENT_DATA: "ERR_PASSKEY_MALFORMED_CLIENT_DATA",
  ERR_PASSKEY_MALFORMED_ATTESTATION_OBJECT: "ERR_PASSKEY_MALFORMED_ATTESTATION_OBJECT",
  ERR_PASSKEY_MALFORMED_AUTHENTICATOR_DATA: "ERR_PASSKEY_MALFORMED_AUTHENTICATOR_DATA",
  ERR_PASSKEY_MALFORMED_PUBLIC_KEY: "ERR_PASSKEY_MALFORMED_PUBLIC_KEY",
  ERR_PASSKEY_TYPE: "ERR_PASSKEY_TYPE",
  ERR_PASSKEY_CHALLENGE: "ERR_PASSKEY_CHALLENGE",
  ERR_PASSKEY_ORIGIN: "ERR_PASSKEY_ORIGIN",
  ERR_PASSKEY_CROSS_ORIGIN: "ERR_PASSKEY_CROSS_ORIGIN",
  ERR_PASSKEY_TOP_ORIGIN: "ERR_PASSKEY_TOP_ORIGIN",
  ERR_PASSKEY_RP_ID_HASH: "ERR_PASSKEY_RP_ID_HASH",
  ERR_PASSKEY_USER_PRESENCE: "ERR_PASSKEY_USER_PRESENCE",
  ERR_PASSKEY_USER_VERIFICATION: "ERR_PASSKEY_USER_VERIFICATION",
  ERR_PASSKEY_BACKUP_FLAGS: "ERR_PASSKEY_BACKUP_FLAGS",
  ERR_PASSKEY_ALGORITHM: "ERR_PASSKEY_ALGORITHM",
  ERR_PASSKEY_ATTESTATION: "ERR_PASSKEY_ATTESTATION",
  ERR_PASSKEY_ATTESTATION_TRUST: "ERR_PASSKEY_ATTESTATION_TRUST",
  ERR_PASSKEY_CREDENTIAL_ID: "ERR_PASSKEY_CREDENTIAL_ID",
  ERR_PASSKEY_CREDENTIAL_TAKEN: "ERR_PASSKEY_CREDENTIAL_TAKEN",
  ERR_PASSKEY_CREDENTIAL_OWNER: "ERR_PASSKEY_CREDENTIAL_OWNER",
  ERR_PASSKEY_USER_HANDLE: "ERR_PASSKEY_USER_HANDLE",
  ERR_PASSKEY_SIGNATURE: "ERR_PASSKEY_SIGNATURE",
  ERR_PASSKEY_SIGN_COUNT: "ERR_PASSKEY_SIGN_COUNT",
  ERR_PASSKEY_INVALID_OPTIONS: "ERR_PASSKEY_INVALID_OPTIONS",
  ERR_PASSKEY_INVALID_NAME: "ERR_PASSKEY_INVALID_NAME",
  ERR_PASSKEY_INVALID_CONFIG: "ERR_PASSKEY_INVALID_CONFIG",
} as const;

/** A passkey error code. */
export type PasskeyErrorCode = keyof typeof PASSKEY_ERROR_CODES;

/** Options accepted by `PasskeyError`. */
export interface PasskeyErrorOptions {
  /** The WebAuthn L3 section and step that failed, e.g. "7.1 step 14: rpIdHash". */
  step: string;
  /** HTTP status; ceremony failures are 400, programmer errors leave it unset (500). */
  status?: number;
  /** The underlying error. */
  cause?: unknown;
}

/** A failed ceremony check, malformed input, or misuse of the WebAuthn or passkey API. */
export class PasskeyError extends LatchError<PasskeyErrorCode> {
  override name: string = "PasskeyError";
  /** The WebAuthn L3 section and step that failed. */
  readonly step: string;

  constructor(code: PasskeyErrorCode, message: string, options: PasskeyErrorOptions) {
    super(code, message, options);
    this.step = options.step;
  }
}

/** Reports whether `e` is a `PasskeyError` (by code, so vendored copies match). */
export function isPasskeyError(e: unknown): e is PasskeyError {
  return hasErrorCode(e, PASSKEY_ERROR_CODES);
}

/** Builds a 400 ceremony failure: `<operation>: <step>: <reason>`. */
export function ceremonyError(code: PasskeyErrorCode, step: string, reason: string, cause?: unknown): PasskeyError {
  return new PasskeyError(code, `passkey: ${step}: ${reason}`, { step, status: 400, cause });
}
