// `Start`'s `Location` becomes a `Location` (303) and a `Framework-Location` (204) header: free of control characters, and on this site (no open redirect).
import { isLocalPath } from "../http/index.ts";
import { JobsError } from "./errors.ts";

/** Returns `location` when it is empty or a local absolute path; throws `JobsError` (`ERR_JOBS_INVALID_ARGUMENT`) otherwise. */

export function checkLocation(location: unknown): string {
  if (typeof location !== "string") throw invalid("must be a string");
  if (location === "") return location;
  if (!isLocalPath(location)) throw invalid("must be a local path: one leading /, visible ASCII, no backslash");
  return location;
}

function invalid(reason: string): JobsError {
  return new JobsError("ERR_JOBS_INVALID_ARGUMENT", `start job: Location ${reason}`);
}
