/* The JSON-RPC methods the MCP endpoint answers (MCP 2025-11-25): `initialize`, `ping`, `tools/list`, `tools/call`. */
import type { ServerResponse } from "node:http";
import {
  APPROVAL_INSTRUCTION,
  approvalURL,
  type Caller,
  type CallOutcome,
  type TokenGrant,
  type ToolCallLimiter,
  type ToolInvoker,
} from "../agent/index.ts";
import { JSONRPC_ERRORS, isObject, type RPCError } from "./jsonrpc.ts";
import { recordMethod, serverCapabilities, type RecordCodes } from "./resources.ts";
import type { MCPSession, MCPSessions } from "./sessions.ts";
import { approvalResult, describeMCPTool, outcomeResult } from "./tools.ts";

/** The protocol revision spoken, as the official TypeScript SDK client (1.32) asks for it. */
export const MCP_PROTOCOL_VERSION = "2025-11-25";

/** Every revision accepted in `initialize` and `MCP-Protocol-Version`, newest first. */
export const MCP_PROTOCOL_VERSIONS: readonly string[] = Object.freeze([MCP_PROTOCOL_VERSION, "2025-06-18"]);

/**
 * A request's answer; `status`: an error's HTTP status when not 200 (the 2026-07-28 transport's 400s and 404); `ended`:
 * the token ended while the call ran (a change of address, a deletion), nothing of it committed.
 */
export type Answer =
  | { result: unknown }
  | { error: RPCError; status?: number }
  | { ended: true }
  /** The token lacks the access the tool needs: a 403 naming `scope`, the OAuth scope of that access, and why (server.ts). */
  | { insufficientScope: string; reason: string };

/**
 * Returns the scope challenge of a call refused because its token lacks the tool's access (a read grant calling a write
 * tool), or undefined for any other outcome. The access is the scope: latch/oauth grants "read" and "write", an agent
 * token's access by the same names, and "write" includes "read" (authorization §Step-Up: a broader scope implies the
 * narrower), so the scope named is the one access needed.
 */
export function scopeChallenge(outcome: CallOutcome): Answer | undefined {
  if (outcome.kind !== "forbidden" || outcome.needs === undefined) return undefined;
  return { insufficientScope: outcome.needs, reason: outcome.reason };
}

/** A `tools/call` run through the limiter and the invoker: its tool's name and outcome, or the wait the rate imposes. */
export type Invoked = { retryAfter: number } | { name: string; outcome: CallOutcome };

/** Runs the `tools/call` with `params` for `caller`, counted against its token by `limiter`. */
export async function invokeTool(
  invoker: ToolInvoker,
  limiter: ToolCallLimiter,
  params: Record<string, unknown>,
  grant: TokenGrant,
  caller: Caller,
): Promise<Invoked> {
  const rate = limiter.take(grant.TokenID);
  // MCP 2025-11-25 server/tools §Security Considerations: rate limit tool invocations.
  if (!rate.ok) return { retryAfter: rate.retryAfter };
  const name = typeof params["name"] === "string" ? params["name"] : "";
  // Even a call without a name goes through the invoker, so every tools/call is on the audit stream.
  return { name, outcome: await invoker.call(caller, name, params["arguments"] ?? {}) };
}

/** The JSON-RPC error of an unknown tool (MCP server/tools §Error Handling: a protocol error, -32602). */
export function unknownTool(name: string): { error: RPCError } {
  return { error: { code: JSONRPC_ERRORS.InvalidParams, message: `unknown tool: ${name.slice(0, 64)}` } };
}

/** What the methods need of the server's config. */
export interface MethodsConfig {
  Invoker: ToolInvoker;
  Origin: string;
  ApprovalPath: string;
  Name: string;
  Version: string;
}

/** Answers one request: its method, its params, who calls, in which session (the response takes `Mcp-Session-Id`). */
export type Dispatch = (
  method: string,
  params: Record<string, unknown>,
  grant: TokenGrant,
  caller: Caller,
  session: MCPSession | undefined,
  res: ServerResponse,
  revision: string | undefined,
) => Promise<Answer>;

/** The codes of a record not found and of a token past its rate, in the 2025 revisions. */
const LEGACY_CODES: RecordCodes = { NotFound: JSONRPC_ERRORS.ResourceNotFound, RateLimited: JSONRPC_ERRORS.RateLimited };

/** Returns the dispatcher of a request's method over `sessions`, its tool calls counted by `limiter`. */
export function mcpMethods(config: MethodsConfig, sessions: MCPSessions, limiter: ToolCallLimiter): Dispatch {
  function initialize(params: Record<string, unknown>, grant: TokenGrant, caller: Caller, res: ServerResponse): Answer {
    const asked = params["protocolVersion"];
    if (typeof asked !== "string")
      return { error: { code: JSONRPC_ERRORS.InvalidParams, message: "initialize: protocolVersion must be a string" } };
    // MCP lifecycle §Version Negotiation: the client's revision when spoken here, otherwise the latest, and the client decides.
    const version = MCP_PROTOCOL_VERSIONS.includes(asked) ? asked : MCP_PROTOCOL_VERSION;
    const capabilities = isObject(params["capabilities"]) ? params["capabilities"] : {};
    const elicitation = capabilities["elicitation"];
    const urlElicitation = version === MCP_PROTOCOL_VERSION && isObject(elicitation) && isObject(elicitation["url"]);
    res.setHeader(
      "Mcp-Session-Id",
      sessions.open({ TokenID: grant.TokenID, Subject: grant.Subject, Version: version, URLElicitation: urlElicitation }),
    );
    return {
      result: {
        protocolVersion: version,
        capabilities: serverCapabilities(config.Invoker, caller),
        serverInfo: { name: config.Name, version: config.Version },
        instructions: APPROVAL_INSTRUCTION,
      },
    };
  }

  async function callTool(
    params: Record<string, unknown>,
    grant: TokenGrant,
    caller: Caller,
    session: MCPSession | undefined,
    revision: string | undefined,
  ): Promise<Answer> {
    const invoked = await invokeTool(config.Invoker, limiter, params, grant, caller);
    // A JSON-RPC error in a 200 answer (transports §Sending Messages: a request gets its response as one JSON object), the wait in its data.
    if ("retryAfter" in invoked) {
      const data = { retryAfter: invoked.retryAfter };
      return { error: { code: JSONRPC_ERRORS.RateLimited, message: "rate limited: too many tool calls for this token", data } };
    }
    const { name, outcome } = invoked;
    if (outcome.kind === "unknown_tool") return unknownTool(name);
    if (outcome.kind === "unauthorized") return { ended: true };
    // MCP 2025-11-25 authorization §Runtime Insufficient Scope Errors: the 403 scope challenge, to a client of that
    // revision (new in it); an older one, or one that never said, keeps the tool error it always had.
    const challenge = revision === MCP_PROTOCOL_VERSION ? scopeChallenge(outcome) : undefined;
    if (challenge !== undefined) return challenge;
    if (outcome.kind !== "approval_required") return { result: outcomeResult(outcome) };
    const url = approvalURL(config, outcome.approval);
    if (session?.URLElicitation === true) {
      // MCP 2025-11-25 elicitation §URL mode: the call cannot proceed until the person has visited the URL.
      const elicitation = { mode: "url", elicitationId: outcome.approval, url, message: APPROVAL_INSTRUCTION };
      return {
        error: { code: JSONRPC_ERRORS.URLElicitationRequired, message: "approval required", data: { elicitations: [elicitation] } },
      };
    }
    return { result: approvalResult(url) };
  }

  return async (method, params, grant, caller, session, res, revision) => {
    switch (method) {
      case "initialize":
        return initialize(params, grant, caller, res);
      case "ping":
        return { result: {} };
      case "tools/list":
        return { result: { tools: config.Invoker.tools(caller).map(describeMCPTool) } };
      case "tools/call":
        return callTool(params, grant, caller, session, revision);
      default:
        return (
          (await recordMethod(method, config, limiter, LEGACY_CODES, params, grant, caller)) ?? {
            error: { code: JSONRPC_ERRORS.MethodNotFound, message: `method not found: ${method.slice(0, 64)}` },
          }
        );
    }
  };
}
