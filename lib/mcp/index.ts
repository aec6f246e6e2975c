/// <reference types="node" preserve="true" />
export { newMCPServer, MCP_PROTOCOL_VERSION, MCP_PROTOCOL_VERSIONS } from "./server.ts";
export { MCPSessions, MAX_MCP_SESSIONS, MAX_MCP_SESSIONS_PER_TOKEN } from "./sessions.ts";
export { describeMCPTool, CONFIRM_META_KEY } from "./tools.ts";
export { JSONRPC_ERRORS } from "./jsonrpc.ts";
export { resourceMetadataURL, RESOURCE_METADATA_PATH } from "./resource-metadata.ts";
export type { MCPServer, MCPServerConfig } from "./server.ts";
export type { MCPSession } from "./sessions.ts";
