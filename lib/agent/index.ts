/// <reference types="node" preserve="true" />
export { Actor, humanActor } from "./actor.ts";
export { Access, ToolRead, ToolWrite } from "./access.ts";
export { defineAction } from "./action.ts";
export { ToolRegistry } from "./registry.ts";
export { auditAuthEvents } from "./audit.ts";
export { AgentTokens } from "./tokens.ts";
export { Approvals, APPROVAL_TTL, MAX_BATCH_DECISIONS } from "./approvals.ts";
export { WaitingNotices, WAITING_NOTICE_AFTER, WAITING_NOTICE_INTERVAL } from "./notices.ts";
export {
  StandingApprovals,
  standingNames,
  STANDING_MAX_CALLS,
  STANDING_MAX_TTL,
  STANDING_DEFAULT_CALLS,
  STANDING_DEFAULT_TTL,
} from "./standing.ts";
export { ToolInvoker } from "./invoke.ts";
export { ToolCallLimiter, limiterFor } from "./rate.ts";
export { newToolsAPI, mountTools, checkApprovalLink, callerFrom, approvalURL, readCallBody, APPROVAL_INSTRUCTION } from "./tools-http.ts";
export { actorFrom, subjectFrom, verifyBearer } from "./request.ts";
export { Schema } from "./schema.ts";
export { AgentError, isAgentError, credentialEnded, isCredentialEnded } from "./errors.ts";
export type { Tool, ToolArg } from "./tool.ts";
export type { ToolDef, CallPreview } from "./action.ts";
export type { AgentTokenInfo, TokenGrant } from "./tokens.ts";
export type { Approval } from "./approvals.ts";
export type { StandingApproval } from "./standing.ts";
export type { Caller, CallOutcome } from "./invoke.ts";
export type { ToolCallRate } from "./rate.ts";
export { accountRows } from "./account-rows.ts";
export type { AgentRows } from "./account-rows.ts";
// Named by the signatures above (issue 42: a public signature names only public types).
export type { ActionSpec, PreviewField, ToolMethod, ToolRun, ToolCheck, ToolPreview, RecordsRole, CallTarget } from "./action.ts";
export type { ArgType, ArgValue } from "./tool.ts";
export type { ActorInit } from "./actor.ts";
export type { ApprovalStatus, ApprovalsOptions, ApprovalBinding, Decision } from "./approvals.ts";
export type { AgentErrorCode } from "./errors.ts";
export type { ToolInvokerConfig } from "./invoke.ts";
export type { WaitingNoticesConfig } from "./notices.ts";
export type { ToolCallLimiterOptions, RateVerdict } from "./rate.ts";
export type { StandingNames, StandingApprovalsOptions, StandingBounds } from "./standing.ts";
export type { OAuthGrantClient, AgentTokensOptions, MintInput } from "./tokens.ts";
export type { ToolsAPI, ToolsAPIConfig } from "./tools-http.ts";
export { AGENT_ERROR_CODES } from "./errors.ts";
export type { ToolInvocation } from "./action.ts";
export type { ToolSpec } from "./tool.ts";
