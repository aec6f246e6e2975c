/*
 * The methods of MCP 2026-07-28 (README, "MCP 2026-07-28"): `server/discover`, `tools/list`, `tools/call`, every
 * result with its `resultType` and the server's identity, the lists with their cache hints. A write call awaiting its
 * person's approval answers `input_required` with a URL-mode elicitation of the approval page and a sealed
 * `requestState`; the retry is the identical call again, through ToolInvoker, which alone decides whether it runs.
 */
import { APPROVAL_INSTRUCTION, approvalURL, type Caller, type TokenGrant, type ToolCallLimiter } from "../agent/index.ts";
import { JSONRPC_ERRORS, isObject } from "./jsonrpc.ts";
import { invokeTool, scopeChallenge, unknownTool, type Answer, type MethodsConfig } from "./methods.ts";
import { META, MCP_ALL_VERSIONS } from "./modern-wire.ts";
import { argumentsDigest, type RequestStates } from "./request-state.ts";
import { recordMethod, serverCapabilities, type RecordCodes } from "./resources.ts";
import { approvalResult, describeMCPTool, outcomeResult } from "./tools.ts";

/**
 * How long a client may keep `server/discover`'s and `tools/list`'s results fresh (caching §Time-to-Live), in ms: 5
 * minutes. Both change only when the application is deployed again, and a call to a tool gone since is answered as an
 * unknown tool, after which a client re-fetches; a shorter hint would only cost round trips.
 */
export const MCP_LIST_TTL_MS: number = 5 * 60 * 1000;

/** The hints of what changes only with a deployment and is the same for every caller: discover, the records' templates. */
const PUBLIC_LIST: Cacheable = { ttlMs: MCP_LIST_TTL_MS, cacheScope: "public" };

/** The hints of a person's records, listed or read: stale at once (any write may change them), never shared. */
const UNCACHED: Cacheable = { ttlMs: 0, cacheScope: "private" };

/** The codes of a record not found (server/resources §Error Handling: -32602) and of a token past its rate. */
const MODERN_CODES: RecordCodes = { NotFound: JSONRPC_ERRORS.InvalidParams, RateLimited: JSONRPC_ERRORS.RateLimitedModern };

/** The key of the approval's URL request in an `input_required` answer's `inputRequests`, and of its response. */
export const APPROVAL_INPUT_KEY = "approval";

/** An interim answer (schema: InputRequiredResult): what the client must get, and the state it echoes in its retry. */
export interface InputRequired {
  resultType: "input_required";
  inputRequests: Record<string, { method: string; params: Record<string, unknown> }>;
  requestState?: string;
  _meta: Record<string, unknown>;
}

/** The cache hints of a list (schema: CacheableResult). */
export interface Cacheable {
  ttlMs: number;
  cacheScope: "public" | "private";
}

/** Answers one 2026-07-28 request that passed `checkModern`, with the capabilities its client declared. */
export type ModernDispatch = (
  method: string,
  params: Record<string, unknown>,
  capabilities: Record<string, unknown>,
  grant: TokenGrant,
  caller: Caller,
) => Promise<Answer>;

/** Whether a client's capabilities declare URL-mode elicitation (client/elicitation §Capabilities). */
function acceptsURLElicitation(capabilities: Record<string, unknown>): boolean {
  const elicitation = capabilities["elicitation"];
  return isObject(elicitation) && isObject(elicitation["url"]);
}

/** Whether the retry's input response says its person declined or dismissed opening the approval page. */
function declined(params: Record<string, unknown>): boolean {
  const responses = params["inputResponses"];
  const response = isObject(responses) ? responses[APPROVAL_INPUT_KEY] : undefined;
  const action = isObject(response) ? response["action"] : undefined;
  return action === "decline" || action === "cancel";
}

/** Returns the 2026-07-28 dispatcher; `states` seals `requestState` (none without an `InstanceKey`). */
export function modernMethods(config: MethodsConfig, limiter: ToolCallLimiter, states: RequestStates | undefined): ModernDispatch {
  const serverInfo = { [META.ServerInfo]: { name: config.Name, version: config.Version } };

  // Basic §Result: every result carries `resultType`; §_meta: the server names itself in each, with no connection to recall.
  const complete = (result: Record<string, unknown>, cache?: Cacheable): Answer => ({
    // Server/utilities/caching §Cacheable Results: discover, the lists and a read carry their hints.
    result: { ...result, resultType: "complete", ...cache, _meta: serverInfo },
  });

  function invalidState(): Answer {
    const message = "invalid params: requestState was not issued by this server for this call, or has expired; call again without it";
    return { status: 400, error: { code: JSONRPC_ERRORS.InvalidParams, message } };
  }

  async function callTool(
    params: Record<string, unknown>,
    capabilities: Record<string, unknown>,
    grant: TokenGrant,
    caller: Caller,
  ): Promise<Answer> {
    // checkModern read the name: a string.
    const call = { TokenID: grant.TokenID, Tool: String(params["name"]), Args: argumentsDigest(params["arguments"] ?? {}) ?? "" };
    const presented = params["requestState"];
    // MCP 2026-07-28 basic/patterns/mrtr §Server Requirements: requestState is attacker-controlled; one that fails
    // verification is rejected, and nothing runs or is written.
    if (presented !== undefined) {
      if (typeof presented !== "string" || states === undefined || call.Args === "") return invalidState();
      if (!states.verify(presented, call, new Date())) return invalidState();
    }
    const invoked = await invokeTool(config.Invoker, limiter, params, grant, caller);
    if ("retryAfter" in invoked) {
      const data = { retryAfter: invoked.retryAfter };
      return { error: { code: JSONRPC_ERRORS.RateLimitedModern, message: "rate limited: too many tool calls for this token", data } };
    }
    const { name, outcome } = invoked;
    if (outcome.kind === "unknown_tool") return unknownTool(name);
    if (outcome.kind === "unauthorized") return { ended: true };
    // Authorization §Runtime Insufficient Scope Errors: a read grant's write call is a 403 scope challenge.
    const challenge = scopeChallenge(outcome);
    if (challenge !== undefined) return challenge;
    if (outcome.kind !== "approval_required") return complete(outcomeResult(outcome));
    const url = approvalURL(config, outcome.approval);
    // Mrtr §Server Requirements: no input request the client has not declared; then, or when its person declined, the
    // URL goes to the model as a tool error, as on the 2025 wire.
    if (!acceptsURLElicitation(capabilities) || declined(params)) return complete(approvalResult(url));
    const request = { method: "elicitation/create", params: { mode: "url", url, message: APPROVAL_INSTRUCTION } };
    const state = states?.seal({ ...call, Approval: outcome.approval }, new Date());
    const result: InputRequired = {
      resultType: "input_required",
      inputRequests: { [APPROVAL_INPUT_KEY]: request },
      ...(state !== undefined && { requestState: state }),
      _meta: serverInfo,
    };
    return { result };
  }

  return async (method, params, capabilities, grant, caller) => {
    switch (method) {
      case "server/discover":
        return complete(
          {
            supportedVersions: [...MCP_ALL_VERSIONS],
            capabilities: serverCapabilities(config.Invoker, caller),
            instructions: APPROVAL_INSTRUCTION,
          },
          PUBLIC_LIST,
        );
      case "tools/list":
        // Private: a read token's list leaves out the write tools.
        return complete({ tools: config.Invoker.tools(caller).map(describeMCPTool) }, { ttlMs: MCP_LIST_TTL_MS, cacheScope: "private" });
      case "tools/call":
        return callTool(params, capabilities, grant, caller);
      default: {
        const records = await recordMethod(method, config, limiter, MODERN_CODES, params, grant, caller);
        // Caching §Cacheable Results: the templates change only with a deployment, a person's records at any time.
        if (records !== undefined && "result" in records)
          return complete(records.result, method === "resources/templates/list" ? PUBLIC_LIST : UNCACHED);
        if (records !== undefined) return records;
        // Transports §Protocol Version Header: a method not implemented is a 404 with -32601.
        return { status: 404, error: { code: JSONRPC_ERRORS.MethodNotFound, message: `method not found: ${method.slice(0, 64)}` } };
      }
    }
  };
}
