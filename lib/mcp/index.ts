/// <reference types="node" preserve="true" />
export { newMCPServer } from "./server.ts";
// Named by newMCPServer's signature (issue 42: a public signature names only public types).
export type { MCPServer, MCPServerConfig } from "./server.ts";
