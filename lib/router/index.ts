/// <reference types="node" preserve="true" />
export { Mux } from "./mux.ts";
export { PathValue } from "./path-value.ts";
export type { Group } from "./mux.ts";
