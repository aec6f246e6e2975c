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
