/*
 * The agent module's codes: actors, tools and actions are programmer errors at startup; tool calls, tokens and
 * approvals are the client's (4xx). Retired: ERR_AGENT_UNCONFIRMED (approvals replaced the caller's own `confirmed`).
 */
import { LatchError } from "../http/index.ts";
import { hasErrorCode } from "../internal/index.ts";

/** The agent module's error codes, each equal to its key. */
export const AGENT_ERROR_CODES = {
  ERR_AGENT_INVALID_ACTOR: "ERR_AGENT_INVALID_ACTOR",
  ERR_AGENT_INVALID_ACCESS: "ERR_AGENT_INVALID_ACCESS",
  ERR_AGENT_INVALID_TOOL: "ERR_AGENT_INVALID_TOOL",
  ERR_AGENT_INVALID_ACTION: "ERR_AGENT_INVALID_ACTION",
  ERR_AGENT_DUPLICATE_TOOL: "ERR_AGENT_DUPLICATE_TOOL",
  ERR_AGENT_INVALID_CALL: "ERR_AGENT_INVALID_CALL",
  ERR_AGENT_INVALID_TOKEN: "ERR_AGENT_INVALID_TOKEN",
  ERR_AGENT_TOKEN_NAME_TAKEN: "ERR_AGENT_TOKEN_NAME_TAKEN",
  ERR_AGENT_TOO_MANY_TOKENS: "ERR_AGENT_TOO_MANY_TOKENS",
  ERR_AGENT_INVALID_APPROVAL: "ERR_AGENT_INVALID_APPROVAL",
  ERR_AGENT_TOO_MANY_APPROVALS: "ERR_AGENT_TOO_MANY_APPROVALS",
  ERR_AGENT_CREDENTIAL_ENDED: "ERR_AGENT_CREDENTIAL_ENDED",
} as const;

/** An agent error code. */
export type AgentErrorCode = keyof typeof AGENT_ERROR_CODES;

/** An error about actors, tools, actions or tool calls. */
export class AgentError extends LatchError<AgentErrorCode> {
  override name: string = "AgentError";
}

/**
 * The error a write throws inside its transaction when the session or token its request came with no longer acts for
 * its subject (a change of address or a deletion since): nothing of it commits, and the caller is answered as an
 * expired credential is (401).
 */
export function credentialEnded(what: string): AgentError {
  return new AgentError("ERR_AGENT_CREDENTIAL_ENDED", `${what}: the session or token of this request has ended`, { status: 401 });
}

/** Reports whether `e` is `credentialEnded`'s error. */
export function isCredentialEnded(e: unknown): boolean {
  return isAgentError(e) && e.code === "ERR_AGENT_CREDENTIAL_ENDED";
}

/** Reports whether `e` is an `AgentError` (by code, so vendored copies match). */
export function isAgentError(e: unknown): e is AgentError {
  return hasErrorCode(e, AGENT_ERROR_CODES);
}
