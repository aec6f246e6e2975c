/// <reference types="node" preserve="true" />
export { newMCPServer } from "./server.ts";
