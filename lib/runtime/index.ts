/// <reference types="node" preserve="true" />
export { BuildVersion } from "./version.ts";
export { Handler } from "./handler.ts";
export { ctxFrom, withCtx, writeError } from "./ctx.ts";
export { renderView } from "./render.ts";
export { Serve } from "./serve.ts";
export { Resolve, Run, StateDirectory } from "./platform.ts";
export { DEFAULT_CSP } from "./security-headers.ts";
export type { Options, Ctx, Routes, ErrorPageFunc, RenderFunc, Stoppable } from "./options.ts";
export type { CtxHandlerFunc } from "./ctx.ts";
