/* Codes thrown by the teams module. */
import { LatchError } from "../http/index.ts";
import { hasErrorCode } from "../internal/index.ts";

/** The teams module's error codes, each equal to its key. */
export const TEAMS_ERROR_CODES = {
  ERR_TEAMS_INVALID_CONFIG: "ERR_TEAMS_INVALID_CONFIG",
} as const;

/** A teams error code. */
export type TeamsErrorCode = keyof typeof TEAMS_ERROR_CODES;

/** An error from the teams module. */
export class TeamsError extends LatchError<TeamsErrorCode> {
  override name: string = "TeamsError";
}

/** Reports whether `e` is a teams error (by code, so vendored copies match). */
export function isTeamsError(e: unknown): e is TeamsError {
  return hasErrorCode(e, TEAMS_ERROR_CODES);
}
