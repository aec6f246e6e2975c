/*
 * Validation of `Start`'s `Location`. The value becomes a `Location` header
 * (303) and a `Framework-Location` header (204), so it must be free of
 * control characters, and it must stay on this site so a job cannot become
 * an open redirect.
 */
import { JobsError } from "./errors.ts";

/**
 * Returns `location` when it is empty or a local absolute path; throws
 * `JobsError` (`ERR_JOBS_INVALID_ARGUMENT`) otherwise.
 */
export function checkLocation(location: unknown): string {
  if (typeof location !== "string") throw invalid("must be a string");
  if (location === "") return location;
  // RFC 9110 §5.5: field values carry no CR, LF or NUL; refuse every control character.
  if (/[\u0000-\u001f\u007f]/.test(location)) throw invalid("must not contain control characters");
  // RFC 3986 §4.2: "//host" and "/\host" are network-path references browsers treat as another origin.
  if (!location.startsWith("/") || location.startsWith("//") || location.startsWith("/\\")) {
    throw invalid("must be a local path starting with a single /");
  }
  return location;
}

function invalid(reason: string): JobsError {
  return new JobsError("ERR_JOBS_INVALID_ARGUMENT", `start job: Location ${reason}`);
}
