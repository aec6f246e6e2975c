/// <reference types="node" preserve="true" />
export { Registry, MAX_RUNNING_PER_OWNER, MAX_RUNTIME, DEFAULT_RETENTION, MAX_FINISHED_PER_OWNER } from "./registry.ts";
export { Status, MAX_PROGRESS_LENGTH, MAX_ERR_LENGTH } from "./job.ts";
export { newHandlers } from "./handlers.ts";
export { DEFAULT_POLL_SECONDS, HEARTBEAT_INTERVAL, WRITE_TIMEOUT, STREAM_LIFETIME, STREAM_RETRY, MAX_STREAMS_PER_OWNER } from "./config.ts";
export { renderStatusHTML, renderFragmentHTML, metaRefresh, progressPercent, DEFAULT_STATUS_LABELS } from "./render.ts";
export { encodeEvent, encodeComment, encodeRetry } from "./sse.ts";
export { JOBS_ERROR_CODES, JobsError, ErrOwnerBusy, isJobsError, isOwnerBusy } from "./errors.ts";
export type { Job } from "./job.ts";
export type { RegistryOptions, StartOptions, JobListener } from "./registry.ts";
export type { JobFunc } from "./launch.ts";
export type { Config, PageData } from "./config.ts";
export type { Handlers } from "./handlers.ts";
export type { StatusLabels } from "./render.ts";
export type { SSEMessage } from "./sse.ts";
export type { JobsErrorCode } from "./errors.ts";
