/// <reference types="node" preserve="true" />
export { NewAssets, CLIENT_DIR } from "./assets.ts";
export type { Assets } from "./assets.ts";
