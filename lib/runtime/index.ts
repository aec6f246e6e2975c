/// <reference types="node" preserve="true" />
export { BuildVersion } from "./version.ts";
export { validateOptions } from "./options.ts";
export { recoverPanics, PLAIN_500, PLAIN_503 } from "./recover.ts";
export { Handler } from "./handler.ts";
export { ctxFrom, withCtx, writeError } from "./ctx.ts";
export { renderView } from "./render.ts";
export { Serve, DEFAULT_SHUTDOWN_GRACE, DEFAULT_HEADERS_TIMEOUT } from "./serve.ts";
export { defaultMaxConnections, readFileLimit, DEFAULT_MAX_CONNECTIONS_PER_CLIENT, RESERVED_FILES, FALLBACK_FILE_LIMIT } from "./connection-limits.ts";
export { Resolve, Run, StateDirectory, parseActivation, DEFAULT_SIDECAR_INTERVAL } from "./platform.ts";
export { DEFAULT_ADDR, parseAddr } from "./listen.ts";
export type { Options, Ctx, Routes, ErrorPageFunc, RenderFunc, Stoppable } from "./options.ts";
export type { Activation } from "./platform.ts";
export type { CtxHandlerFunc, SharedCtx } from "./ctx.ts";
