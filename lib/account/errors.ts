/* Codes thrown by the account module. */
import { LatchError } from "../http/index.ts";
import { hasErrorCode } from "../internal/index.ts";

/** The account module's error codes, each equal to its key. */
export const ACCOUNT_ERROR_CODES = {
  ERR_ACCOUNT_INVALID_CONFIG: "ERR_ACCOUNT_INVALID_CONFIG",
  ERR_ACCOUNT_DOWNLOADS_BUSY: "ERR_ACCOUNT_DOWNLOADS_BUSY",
} as const;

/** An account error code. */
export type AccountErrorCode = keyof typeof ACCOUNT_ERROR_CODES;

/** An error from the account module. */
export class AccountError extends LatchError<AccountErrorCode> {
  override name: string = "AccountError";
}

/** Reports whether `e` is an account error (by code, so vendored copies match). */
export function isAccountError(e: unknown): e is AccountError {
  return hasErrorCode(e, ACCOUNT_ERROR_CODES);
}
