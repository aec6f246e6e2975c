/// <reference types="node" preserve="true" />
export {
  Run,
  Resolve,
  StateDirectory,
  Serve,
  Handler,
  BuildVersion,
  ctxFrom,
  withCtx,
  writeError,
  renderView,
  DEFAULT_CSP,
} from "./runtime/index.ts";
export { Mux } from "./router/index.ts";
export { OpenDB } from "./db/index.ts";
export type { Options, Ctx, Routes, ErrorPageFunc, RenderFunc, Stoppable, CtxHandlerFunc } from "./runtime/index.ts";
