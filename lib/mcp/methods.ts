/* The JSON-RPC methods the MCP endpoint answers (MCP 2025-11-25): `initialize`, `ping`, `tools/list`, `tools/call`. */
import type { ServerResponse } from "node:http";
import { APPROVAL_INSTRUCTION, approvalURL, type Caller, type TokenGrant, type ToolCallLimiter, type ToolInvoker } from "../agent/index.ts";
import { JSONRPC_ERRORS, isObject, type RPCError } from "./jsonrpc.ts";
import type { MCPSession, MCPSessions } from "./sessions.ts";
import { describeMCPTool, outcomeResult, textResult } from "./tools.ts";

/** The protocol revision spoken, as the official TypeScript SDK client (1.32) asks for it. */
export const MCP_PROTOCOL_VERSION = "2025-11-25";

/** Every revision accepted in `initialize` and `MCP-Protocol-Version`, newest first. */
export const MCP_PROTOCOL_VERSIONS: readonly string[] = Object.freeze([MCP_PROTOCOL_VERSION, "2025-06-18"]);

/** A request's answer; `ended`: the token ended while the call ran (a change of address, a deletion), nothing of it committed. */
export type Answer = { result: unknown } | { error: RPCError } | { ended: true };

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
) => Promise<Answer>;

/** Returns the dispatcher of a request's method over `sessions`, its tool calls counted by `limiter`. */
export function mcpMethods(config: MethodsConfig, sessions: MCPSessions, limiter: ToolCallLimiter): Dispatch {
  function initialize(params: Record<string, unknown>, grant: TokenGrant, res: ServerResponse): Answer {
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
        capabilities: { tools: { listChanged: false } },
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
  ): Promise<Answer> {
    const rate = limiter.take(grant.TokenID);
    // MCP 2025-11-25 server/tools §Security Considerations: rate limit tool invocations. A JSON-RPC error in a 200
    // answer (transports §Sending Messages: a request gets its response as one JSON object), the wait in its data.
    if (!rate.ok) {
      const data = { retryAfter: rate.retryAfter };
      return { error: { code: JSONRPC_ERRORS.RateLimited, message: "rate limited: too many tool calls for this token", data } };
    }
    const name = typeof params["name"] === "string" ? params["name"] : "";
    // Even a call without a name goes through the invoker, so every tools/call is on the audit stream.
    const outcome = await config.Invoker.call(caller, name, params["arguments"] ?? {});
    if (outcome.kind === "unknown_tool")
      return { error: { code: JSONRPC_ERRORS.InvalidParams, message: `unknown tool: ${name.slice(0, 64)}` } };
    if (outcome.kind === "unauthorized") return { ended: true };
    if (outcome.kind !== "approval_required") return { result: outcomeResult(outcome) };
    const url = approvalURL(config, outcome.approval);
    if (session?.URLElicitation === true) {
      // MCP 2025-11-25 elicitation §URL mode: the call cannot proceed until the person has visited the URL.
      const elicitation = { mode: "url", elicitationId: outcome.approval, url, message: APPROVAL_INSTRUCTION };
      return {
        error: { code: JSONRPC_ERRORS.URLElicitationRequired, message: "approval required", data: { elicitations: [elicitation] } },
      };
    }
    return {
      result: textResult(`approval required: ${url}\n${APPROVAL_INSTRUCTION}`, true, { status: "approval_required", approval_url: url }),
    };
  }

  return async (method, params, grant, caller, session, res) => {
    switch (method) {
      case "initialize":
        return initialize(params, grant, res);
      case "ping":
        return { result: {} };
      case "tools/list":
        return { result: { tools: config.Invoker.tools(caller).map(describeMCPTool) } };
      case "tools/call":
        return callTool(params, grant, caller, session);
      default:
        return { error: { code: JSONRPC_ERRORS.MethodNotFound, message: `method not found: ${method.slice(0, 64)}` } };
    }
  };
}
