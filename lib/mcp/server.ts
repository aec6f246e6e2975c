/*
 * An MCP server endpoint over Streamable HTTP (MCP 2025-11-25, and clients of 2025-06-18) serving the application's
 * tools to agents: POST one JSON-RPC message, answered with one JSON response (no SSE stream), DELETE ends a session,
 * GET is 405. Every request needs an agent token as `Authorization: Bearer`; a tool call runs through the `ToolInvoker`
 * as on the tools endpoint, with `via: "mcp"` and the same per-token rate (README, Transport and Tools).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  callerFrom,
  checkApprovalLink,
  limiterFor,
  readCallBody,
  verifyBearer,
  type AgentTokens,
  type Caller,
  type TokenGrant,
  type ToolCallLimiter,
  type ToolInvoker,
} from "../agent/index.ts";
import { readBody, writeJSON, HTTPError, type HandlerFunc } from "../http/index.ts";
import { mediaType, needRoute, originVerdict, parseOrigin } from "../internal/index.ts";
import { JSONRPC_ERRORS, errorMessage, parseMessage, resultMessage } from "./jsonrpc.ts";
import { MCP_PROTOCOL_VERSIONS, mcpMethods } from "./methods.ts";
import { resourceMetadataHandler, resourceMetadataURL } from "./resource-metadata.ts";
import { MCPSessions, type MCPSession } from "./sessions.ts";

export { MCP_PROTOCOL_VERSION, MCP_PROTOCOL_VERSIONS } from "./methods.ts";

/** What `newMCPServer` needs. */
export interface MCPServerConfig {
  Invoker: ToolInvoker;
  Tokens: AgentTokens;
  /** The application's public origin; the only `Origin` a browser may send. */
  Origin: string;
  /** Where the endpoint is mounted. @default "/mcp" */
  Path?: string;
  /** Path of the approval page, as given to `newToolsAPI`. */
  ApprovalPath: string;
  /** `serverInfo` of `initialize`, and the metadata's `resource_name`. */
  Name: string;
  Version: string;
  /** A page telling people how to connect (RFC 9728 `resource_documentation`). */
  Documentation?: string;
  /**
   * The application's authorization server (latch/oauth's `newOAuthServer` result): the metadata then names its
   * issuer in `authorization_servers` and its scopes in `scopes_supported`, and an MCP client connects by OAuth.
   */
  AuthorizationServer?: { readonly Issuer: string; readonly Scopes: readonly string[] };
  /**
   * How often each agent token may call tools (`tools/call`); give the tools endpoint the same limiter.
   * @default one limiter of 60 calls a minute, 20 at once, per `Tokens`, shared with the tools endpoint of the same `Tokens`
   */
  RateLimit?: ToolCallLimiter;
}

/** The endpoint's handlers. */
export interface MCPServer {
  /** Mount at `Path` for every method. */
  Handler: HandlerFunc;
  /** Mount at `GET /.well-known/oauth-protected-resource<Path>`: the endpoint as the resource. */
  ResourceMetadata: HandlerFunc;
  /** Mount at `GET /.well-known/oauth-protected-resource`: the application as the resource. */
  ApplicationMetadata: HandlerFunc;
  /** The absolute URL of `ResourceMetadata`, named in every 401. */
  ResourceMetadataURL: string;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(",") : value;
}

/** Answers an HTTP-level refusal with a JSON-RPC error body that has no id. */
function refuse(res: ServerResponse, status: number, code: number, message: string): void {
  writeJSON(res, status, errorMessage(undefined, { code, message }));
}

function empty(res: ServerResponse, status: number): void {
  res.statusCode = status;
  res.end();
}

/**
 * Returns the MCP endpoint for `config`. Throws `HTTPError`
 * `ERR_HTTP_INVALID_OPTIONS` when `Origin` is not an http or https URL or
 * `ApprovalPath` not a local path.
 *
 * @example
 * const mcp = newMCPServer({ Invoker, Tokens, Origin, ApprovalPath: "/account/approvals", Name: "demo", Version: "1.0.0" });
 * mux.Handle("/mcp", mcp.Handler);
 * mux.Handle("GET /.well-known/oauth-protected-resource/mcp", mcp.ResourceMetadata);
 * mux.Handle("GET /.well-known/oauth-protected-resource", mcp.ApplicationMetadata);
 */
export function newMCPServer(config: MCPServerConfig): MCPServer {
  const origin = parseOrigin(config.Origin);
  if (origin === undefined) throw new HTTPError("ERR_HTTP_INVALID_OPTIONS", "mcp server: Origin must be an http or https URL");
  checkApprovalLink(config, "mcp server");
  const resource = new URL(config.Path ?? "/mcp", origin).href;
  const metadataURL = resourceMetadataURL(resource);
  const sessions = new MCPSessions();
  const dispatch = mcpMethods(config, sessions, limiterFor(config.Tokens, config.RateLimit));

  const challenge = (res: ServerResponse, error: string): void => {
    // RFC 9728 §5.1: a 401 names the resource metadata, so a client can find out how to authenticate.
    res.setHeader("WWW-Authenticate", `Bearer ${error === "" ? "" : `error="${error}", `}resource_metadata="${metadataURL}"`);
    refuse(res, 401, JSONRPC_ERRORS.InvalidRequest, "unauthorized: an agent token is required as Authorization: Bearer");
  };

  const Handler: HandlerFunc = async (req, res) => {
    // MCP 2025-11-25 transports §Security Warning: validate Origin on every request (DNS rebinding); present and foreign → 403.
    if (originVerdict(req, origin) === "cross-origin") {
      return refuse(res, 403, JSONRPC_ERRORS.InvalidRequest, "forbidden: cross-origin request refused");
    }
    if (req.method !== "POST" && req.method !== "DELETE") {
      res.setHeader("Allow", "POST, DELETE");
      return refuse(res, 405, JSONRPC_ERRORS.InvalidRequest, "method not allowed: this endpoint offers no GET stream");
    }
    const grant = await verifyBearer(req, config.Tokens, resource);
    if (grant === "none") return challenge(res, "");
    if (grant === "invalid") return challenge(res, "invalid_token");
    const version = header(req, "mcp-protocol-version");
    // MCP 2025-11-25 transports §Protocol Version Header: an unsupported version is a 400.
    if (version !== undefined && !MCP_PROTOCOL_VERSIONS.includes(version)) {
      const supported = MCP_PROTOCOL_VERSIONS.join(", ");
      return refuse(res, 400, JSONRPC_ERRORS.InvalidRequest, `unsupported MCP-Protocol-Version; supported: ${supported}`);
    }
    const sessionID = header(req, "mcp-session-id");
    const session = sessionID === undefined ? undefined : sessions.get(sessionID, grant.TokenID);
    // MCP transports §Session Management: an unknown (or ended) session is a 404, and the client starts over.
    if (sessionID !== undefined && session === undefined)
      return refuse(res, 404, JSONRPC_ERRORS.InvalidRequest, "session not found; initialize again");
    if (req.method === "DELETE") {
      if (sessionID === undefined) return refuse(res, 400, JSONRPC_ERRORS.InvalidRequest, "no Mcp-Session-Id to end");
      sessions.close(sessionID, grant.TokenID);
      return empty(res, 204);
    }
    // verifyBearer bound the grant to req: the caller, Ctx.Actor and the audit event all name its agent (never undefined here).
    const caller = callerFrom(req, "mcp");
    if (caller === undefined) return challenge(res, "invalid_token");
    await post(req, res, grant, caller, session);
  };

  async function post(
    req: IncomingMessage,
    res: ServerResponse,
    grant: TokenGrant,
    caller: Caller,
    session: MCPSession | undefined,
  ): Promise<void> {
    if (mediaType(req) !== "application/json")
      return refuse(res, 415, JSONRPC_ERRORS.InvalidRequest, "unsupported media type: send application/json");
    const body = await readCallBody(req, res, readBody, (message) =>
      errorMessage(undefined, { code: JSONRPC_ERRORS.InvalidRequest, message }),
    );
    if (body === undefined) return;
    const message = parseMessage(body);
    switch (message.kind) {
      case "invalid":
        return writeJSON(res, 400, errorMessage(undefined, message.error));
      case "notification":
      case "response":
        // Transports §Sending Messages: accepted notifications and responses get 202 and no body.
        return empty(res, 202);
      case "request": {
        const answer = await dispatch(message.method, message.params, grant, caller, session, res);
        // RFC 6750 §3.1: a token that ended while its call ran is answered as a revoked one.
        if ("ended" in answer) return challenge(res, "invalid_token");
        return writeJSON(res, 200, "error" in answer ? errorMessage(message.id, answer.error) : resultMessage(message.id, answer.result));
      }
    }
  }

  // The approval page is the application's: the runtime warns at boot when its Mux does not route it.
  needRoute(Handler, { Path: `${config.ApprovalPath}/{id}`, Option: "newMCPServer ApprovalPath" });
  return {
    Handler,
    ResourceMetadata: resourceMetadataHandler(resource, config.Name, config.Documentation, config.AuthorizationServer),
    ApplicationMetadata: resourceMetadataHandler(origin, config.Name, config.Documentation, config.AuthorizationServer),
    ResourceMetadataURL: metadataURL,
  };
}
