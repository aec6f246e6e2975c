/*
 * Validation of `Start`'s `Location`. The value becomes a `Location` header
 * (303) and a `Framework-Location` header (204), so it must be free of
 * control characters, and it must stay on this site so a job cannot become
 * an open redirect.
 */
import { isLocalPath } from "../http/index.ts";
import { JobsError } from "./errors.ts";

/**
 * Returns `location` when it is empty or a local absolute path; throws
 * `JobsError` (`ERR_JOBS_INVALID_ARGUMENT`) otherwise.
 */
export function checkLocation(location: unknown): string {
  if (typeof location !== "string") throw invalid("must be a string");
  if (location === "") return location;
  if (!isLocalPath(location)) throw invalid("must be a local path: one leading /, visible ASCII, no backslash");
  return location;
}

function invalid(reason: string): JobsError {
  return new JobsError("ERR_JOBS_INVALID_ARGUMENT", `start job: Location ${reason}`);
}
