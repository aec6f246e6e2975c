/*
 * An MCP server endpoint over Streamable HTTP serving the application's tools to agents, in both eras on one path
 * (README, Transport and "MCP 2026-07-28"): a request whose `_meta` or `MCP-Protocol-Version` names 2026-07-28 is served
 * statelessly by that revision's rules; any other by 2025-11-25's (and 2025-06-18's), after `initialize`, with sessions.
 * POST one JSON-RPC message, answered with one JSON response (no SSE stream); DELETE ends a 2025 session; GET is 405.
 * Every request needs an agent token as `Authorization: Bearer`; a tool call runs through the `ToolInvoker` as on the
 * tools endpoint, with `via: "mcp"` and the same per-token rate.
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
import { JSONRPC_ERRORS, errorMessage, parseMessage, resultMessage, type ParsedMessage, type RequestID } from "./jsonrpc.ts";
import { MCP_PROTOCOL_VERSIONS, mcpMethods, type Answer } from "./methods.ts";
import { modernMethods } from "./modern-methods.ts";
import { checkModern, claimsModern } from "./modern-wire.ts";
import { RequestStates } from "./request-state.ts";
import { resourceMetadataHandler, resourceMetadataURL } from "./resource-metadata.ts";
import { MCPSessions } from "./sessions.ts";

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
  /**
   * The application's `InstanceKey` (as given to latch/signin): the key of the sealed `requestState` of a 2026-07-28
   * `input_required` answer is derived from it. Without it those answers carry no `requestState`, and a retry that
   * presents one is refused.
   */
  InstanceKey?: string;
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
 * Answers a call whose token lacks the access its tool needs. MCP 2026-07-28 and 2025-11-25 authorization §Runtime
 * Insufficient Scope Errors, RFC 6750 §3.1: 403, the scope the call needs and the metadata's URL, so an OAuth client can
 * ask its person for more (step-up). The reason is the invoker's own sentence, in error_description's characters (RFC
 * 6750 §3: no quote, no backslash).
 */
function insufficientScope(res: ServerResponse, metadataURL: string, id: RequestID, scope: string, reason: string): void {
  res.setHeader(
    "WWW-Authenticate",
    `Bearer error="insufficient_scope", scope="${scope}", resource_metadata="${metadataURL}", error_description="${reason}"`,
  );
  const message = `insufficient scope: ${reason}; the call needs scope ${scope}`;
  writeJSON(res, 403, errorMessage(id, { code: JSONRPC_ERRORS.InvalidRequest, message }));
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
  if (config.InstanceKey === "") throw new HTTPError("ERR_HTTP_INVALID_OPTIONS", "mcp server: InstanceKey must not be empty");
  const resource = new URL(config.Path ?? "/mcp", origin).href;
  const metadataURL = resourceMetadataURL(resource);
  const sessions = new MCPSessions();
  const limiter = limiterFor(config.Tokens, config.RateLimit);
  const dispatch = mcpMethods(config, sessions, limiter);
  const modern = modernMethods(config, limiter, config.InstanceKey === undefined ? undefined : new RequestStates(config.InstanceKey));

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
    // verifyBearer bound the grant to req: the caller, Ctx.Actor and the audit event all name its agent (never undefined here).
    const caller = callerFrom(req, "mcp");
    if (caller === undefined) return challenge(res, "invalid_token");
    const version = header(req, "mcp-protocol-version");
    if (req.method === "POST" && mediaType(req) === "application/json") {
      const body = await readCallBody(req, res, readBody, (message) =>
        errorMessage(undefined, { code: JSONRPC_ERRORS.InvalidRequest, message }),
      );
      if (body === undefined) return;
      const message = parseMessage(body);
      if (claimsModern(message, version)) return serveModern(req, res, message, grant, caller);
      return serveLegacy(req, res, version, grant, caller, message);
    }
    return serveLegacy(req, res, version, grant, caller, undefined);
  };

  /** A request of the 2025 era, answered as before 2026-07-28; `message` undefined: a DELETE, or a body not JSON. */
  async function serveLegacy(
    req: IncomingMessage,
    res: ServerResponse,
    version: string | undefined,
    grant: TokenGrant,
    caller: Caller,
    message: ParsedMessage | undefined,
  ): Promise<void> {
    // MCP 2025-11-25 transports §Protocol Version Header: an unsupported version is a 400.
    if (version !== undefined && !MCP_PROTOCOL_VERSIONS.includes(version)) {
      const supported = MCP_PROTOCOL_VERSIONS.join(", ");
      return refuse(res, 400, JSONRPC_ERRORS.InvalidRequest, `unsupported MCP-Protocol-Version; supported: ${supported}`);
    }
    const sessionID = header(req, "mcp-session-id");
    const session = sessionID === undefined ? undefined : sessions.get(sessionID, grant.TokenID);
    // Transports §Protocol Version Header: a request is of its session's revision, else its header's (else an older one).
    const revision = session?.Version ?? version;
    // MCP transports §Session Management: an unknown (or ended) session is a 404, and the client starts over.
    if (sessionID !== undefined && session === undefined)
      return refuse(res, 404, JSONRPC_ERRORS.InvalidRequest, "session not found; initialize again");
    if (req.method === "DELETE") {
      if (sessionID === undefined) return refuse(res, 400, JSONRPC_ERRORS.InvalidRequest, "no Mcp-Session-Id to end");
      sessions.close(sessionID, grant.TokenID);
      return empty(res, 204);
    }
    if (message === undefined) return refuse(res, 415, JSONRPC_ERRORS.InvalidRequest, "unsupported media type: send application/json");
    switch (message.kind) {
      case "invalid":
        return writeJSON(res, 400, errorMessage(undefined, message.error));
      case "notification":
      case "response":
        // Transports §Sending Messages: accepted notifications and responses get 202 and no body.
        return empty(res, 202);
      case "request":
        return answer(res, message.id, await dispatch(message.method, message.params, grant, caller, session, res, revision));
    }
  }

  /** A request of the 2026-07-28 era: stateless, its `_meta` and headers checked first (modern-wire.ts). */
  async function serveModern(
    req: IncomingMessage,
    res: ServerResponse,
    message: ParsedMessage,
    grant: TokenGrant,
    caller: Caller,
  ): Promise<void> {
    // Transports §Backward Compatibility: an Mcp-Session-Id on such a request is ignored, and none is minted.
    if (message.kind === "invalid") return writeJSON(res, 400, errorMessage(undefined, message.error));
    if (message.kind !== "request") return empty(res, 202);
    const checked = checkModern(req, message.method, message.params);
    if (!checked.ok) return writeJSON(res, checked.status, errorMessage(message.id, checked.error));
    return answer(res, message.id, await modern(message.method, message.params, checked.capabilities, grant, caller));
  }

  function answer(res: ServerResponse, id: RequestID, reply: Answer): void {
    // RFC 6750 §3.1: a token that ended while its call ran is answered as a revoked one.
    if ("ended" in reply) return challenge(res, "invalid_token");
    if ("insufficientScope" in reply) return insufficientScope(res, metadataURL, id, reply.insufficientScope, reply.reason);
    if ("error" in reply) return writeJSON(res, reply.status ?? 200, errorMessage(id, reply.error));
    writeJSON(res, 200, resultMessage(id, reply.result));
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
