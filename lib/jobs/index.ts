export { Registry, NewRegistry, MAX_RUNNING_PER_OWNER, MAX_RUNTIME, DEFAULT_RETENTION } from "./registry.ts";
export { Status, MAX_PROGRESS_LENGTH, MAX_ERR_LENGTH } from "./job.ts";
export { JOBS_ERROR_CODES, JobsError, ErrOwnerBusy, isJobsError, isOwnerBusy } from "./errors.ts";
export type { Job } from "./job.ts";
export type { RegistryOptions, StartOptions, JobListener } from "./registry.ts";
export type { JobFunc } from "./launch.ts";
export type { JobsErrorCode } from "./errors.ts";
