// Errors of the jobs module; `ErrOwnerBusy` is the contract's sentinel (SPEC.md §7), worded by the application.
import { LatchError, type LatchErrorOptions } from "../http/index.ts";
import { hasErrorCode } from "../internal/index.ts";

/** The codes thrown by the jobs module, each equal to its key. */
export const JOBS_ERROR_CODES = {
  ERR_JOBS_OWNER_BUSY: "ERR_JOBS_OWNER_BUSY",
  ERR_JOBS_INVALID_CONFIG: "ERR_JOBS_INVALID_CONFIG",
  ERR_JOBS_INVALID_ARGUMENT: "ERR_JOBS_INVALID_ARGUMENT",
  ERR_JOBS_SHUT_DOWN: "ERR_JOBS_SHUT_DOWN",
  ERR_JOBS_TIMEOUT: "ERR_JOBS_TIMEOUT",
} as const;

/** A jobs error code. */
export type JobsErrorCode = keyof typeof JOBS_ERROR_CODES;

/** An error from the jobs module: bad configuration, bad arguments, a stopped registry. */
export class JobsError extends LatchError<JobsErrorCode> {
  override name: string = "JobsError";
}

/**
 * Thrown by `Registry.Start` when the owner already has `MAX_RUNNING_PER_OWNER`
 * running jobs (SPEC.md §3.1, §7). Test with `instanceof` or `isOwnerBusy`.
 */
export class ErrOwnerBusy extends JobsError {
  override name: string = "ErrOwnerBusy";
  /** The owner that was refused. */
  readonly owner: string;

  constructor(owner: string, limit: number, options: LatchErrorOptions = {}) {
    super("ERR_JOBS_OWNER_BUSY", `start job: owner already has ${limit} running jobs`, { status: 429, ...options });
    this.owner = owner;
  }
}

/** Reports whether `e` is a jobs error (checked by `code`, so copies of latch agree). */
export function isJobsError(e: unknown): e is JobsError {
  return hasErrorCode(e, JOBS_ERROR_CODES);
}

/** Reports whether `e` is the `ErrOwnerBusy` refusal (checked by `code`). */
export function isOwnerBusy(e: unknown): e is ErrOwnerBusy {
  return isJobsError(e) && e.code === "ERR_JOBS_OWNER_BUSY";
}
