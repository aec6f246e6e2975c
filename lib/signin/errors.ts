/* Codes thrown by the sign-in module. */
import { LatchError } from "../http/index.ts";
import { hasErrorCode } from "../internal/index.ts";

/** The sign-in module's error codes, each equal to its key. */
export const SIGNIN_ERROR_CODES = {
  ERR_SIGNIN_EMPTY_INSTANCE_KEY: "ERR_SIGNIN_EMPTY_INSTANCE_KEY",
  ERR_SIGNIN_INVALID_CONFIG: "ERR_SIGNIN_INVALID_CONFIG",
} as const;

/** A sign-in error code. */
export type SigninErrorCode = keyof typeof SIGNIN_ERROR_CODES;

/** An error from the sign-in module. */
export class SigninError extends LatchError<SigninErrorCode> {
  override name: string = "SigninError";
}

/** The fewest bytes (UTF-8) an `InstanceKey` carries: a SHA-256 HMAC key as long as the hash. */
export const MIN_INSTANCE_KEY_BYTES: number = 32;

/** How to make an instance key, told to whoever forgot one. */
export const INSTANCE_KEY_HINT: string =
  "generate one with `openssl rand -base64 32` (or `node -e \"console.log(require('node:crypto').randomBytes(32).toString('base64'))\"`) and pass it, e.g. INSTANCE_KEY=<that> in the environment";

/** Thrown by `create` when `Config.InstanceKey` is empty (SPEC §2.6, §7). */
export class ErrEmptyInstanceKey extends SigninError {
  override name: string = "ErrEmptyInstanceKey";
  constructor() {
    super("ERR_SIGNIN_EMPTY_INSTANCE_KEY", `signin: InstanceKey must not be empty; ${INSTANCE_KEY_HINT}`);
  }
}

/** Reports whether `e` is a sign-in error (by code, so vendored copies match). */
export function isSigninError(e: unknown): e is SigninError {
  return hasErrorCode(e, SIGNIN_ERROR_CODES);
}
