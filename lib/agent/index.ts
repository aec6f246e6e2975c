/// <reference types="node" preserve="true" />
export { Actor, humanActor } from "./actor.ts";
export { Access, ToolRead, ToolWrite } from "./access.ts";
export { defineAction } from "./action.ts";
export { ToolRegistry } from "./registry.ts";
export { auditAuthEvents } from "./audit.ts";
export { AgentTokens } from "./tokens.ts";
export { Approvals, APPROVAL_TTL } from "./approvals.ts";
export { ToolInvoker } from "./invoke.ts";
export { newToolsAPI, checkApprovalLink, callerFrom, approvalURL, readCallBody, APPROVAL_INSTRUCTION } from "./tools-http.ts";
export { actorFrom, subjectFrom, verifyBearer } from "./request.ts";
export { Schema } from "./schema.ts";
export { AgentError, isAgentError } from "./errors.ts";
export type { Tool, ToolArg } from "./tool.ts";
export type { ToolDef } from "./action.ts";
export type { AgentTokenInfo, TokenGrant } from "./tokens.ts";
export type { Approval } from "./approvals.ts";
export type { Caller, CallOutcome } from "./invoke.ts";
