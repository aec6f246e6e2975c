/* Codes thrown by the operators module. */
import { LatchError } from "../http/index.ts";
import { hasErrorCode } from "../internal/index.ts";

/** The operators module's error codes, each equal to its key. */
export const OPERATORS_ERROR_CODES = {
  ERR_OPERATORS_INVALID_CONFIG: "ERR_OPERATORS_INVALID_CONFIG",
} as const;

/** An operators error code. */
export type OperatorsErrorCode = keyof typeof OPERATORS_ERROR_CODES;

/** An error from the operators module. */
export class OperatorsError extends LatchError<OperatorsErrorCode> {
  override name: string = "OperatorsError";
}

/** Reports whether `e` is an operators error (by code, so vendored copies match). */
export function isOperatorsError(e: unknown): e is OperatorsError {
  return hasErrorCode(e, OPERATORS_ERROR_CODES);
}
