/*
 * Codes thrown by WebAuthn verification and by the passkey component built
 * on it: one table, so both keep the codes they always had.
 * A failed WebAuthn ceremony is a thrown `PasskeyError` (status 400) rather
 * than an `{ ok: false }` union: every failure, from a malformed byte to a
 * bad signature, ends the ceremony the same way, and the route answers 400.
 * Each error carries `step`, the W3C WebAuthn Level 3 section and step that
 * failed (e.g. "7.2 step 21: signature"), so logs say exactly which check
 * refused the response.
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
    const base: { status?: number; cause?: unknown } = {};
    if (options.status !== undefined) base.status = options.status;
    if (options.cause !== undefined) base.cause = options.cause;
    super(code, message, base);
    this.step = options.step;
  }
}

/** Reports whether `e` is a `PasskeyError` (by code, so vendored copies match). */
export function isPasskeyError(e: unknown): e is PasskeyError {
  return hasErrorCode(e, PASSKEY_ERROR_CODES);
}

/** Builds a 400 ceremony failure: `<operation>: <step>: <reason>`. */
export function ceremonyError(code: PasskeyErrorCode, step: string, reason: string, cause?: unknown): PasskeyError {
  const options: PasskeyErrorOptions = { step, status: 400 };
  if (cause !== undefined) options.cause = cause;
  return new PasskeyError(code, `passkey: ${step}: ${reason}`, options);
}
