/// <reference types="node" preserve="true" />
export { Mux } from "./mux.ts";
export { PathValue, setPathValue, Pattern } from "./path-value.ts";
export { ROUTER_ERROR_CODES, RouterError, isRouterError } from "./errors.ts";
export type { Group } from "./mux.ts";
export type { RouterErrorCode } from "./errors.ts";
