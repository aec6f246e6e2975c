/// <reference types="node" preserve="true" />
export { Registry, MAX_RUNNING_PER_OWNER, MAX_RUNTIME } from "./registry.ts";
export { Status } from "./job.ts";
export { newHandlers } from "./handlers.ts";
export { HEARTBEAT_INTERVAL } from "./config.ts";
export { renderStatusHTML, renderFragmentHTML, metaRefresh } from "./render.ts";
export { ErrOwnerBusy, isOwnerBusy } from "./errors.ts";
export type { Job } from "./job.ts";
export type { JobFunc } from "./launch.ts";
export type { Config, PageData } from "./config.ts";
export type { StatusLabels } from "./render.ts";
// Named by the signatures above (issue 42: a public signature names only public types):
// Handlers carries the contract's StatusPage, Fragment and Events (spec.md §2.8).
// JobsError as a type only: the base of ErrOwnerBusy, not a class to test with instanceof.
export type { Handlers } from "./handlers.ts";
export type { RenderPageFunc } from "./config.ts";
export type { RegistryOptions, StartOptions, JobListener } from "./registry.ts";
export type { JobsError } from "./errors.ts";
export { JOBS_ERROR_CODES } from "./errors.ts";
export type { JobsErrorCode } from "./errors.ts";
