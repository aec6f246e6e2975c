/*
 * JSON-RPC 2.0 as MCP uses it: one message per POST (no batches since 2025-06-18), ids that are strings or integers,
 * params that are objects. `parseMessage` narrows untrusted bytes and never throws on client input.
 */

/** JSON-RPC 2.0 §5.1 error codes, MCP's URL elicitation code and latch's rate limit code. */
export const JSONRPC_ERRORS = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** MCP 2025-11-25 server/resources §Error Handling: the resource is not found (2026-07-28 uses -32602). */
  ResourceNotFound: -32002,
  /** MCP 2025-11-25: the request needs the person to visit a URL first. Never sent on the 2026-07-28 wire (basic §Error Codes). */
  URLElicitationRequired: -32042,
  /** MCP 2026-07-28: the HTTP headers do not match the body, or a required one is missing. */
  HeaderMismatch: -32020,
  /** MCP 2026-07-28: the request's protocol version is not spoken here; `data` names the supported ones and the requested one. */
  UnsupportedProtocolVersion: -32022,
  /**
   * latch's own, in JSON-RPC's range for implementation-defined server errors (-32000 to -32099, §5.1) and none
   * MCP or its SDKs use: a token's tool calls are past their rate; `data.retryAfter` is the wait in seconds.
   */
  RateLimited: -32029,
  /**
   * The same refusal on the 2026-07-28 wire, where -32020 to -32099 are the specification's alone (basic §Error Codes:
   * a code for a purpose it does not define SHOULD lie outside -32768 to -32000); `data.retryAfter` as above.
   */
  RateLimitedModern: -31029,
} as const;

/** A request id: a string or a safe integer. */
export type RequestID = string | number;

/** A JSON-RPC error object. */
export interface RPCError {
  code: number;
  message: string;
  data?: unknown;
}

/** A message narrowed from a body, or the error it earns. */
export type ParsedMessage =
  | { kind: "request"; id: RequestID; method: string; params: Record<string, unknown> }
  | { kind: "notification"; method: string }
  | { kind: "response" }
  | { kind: "invalid"; error: RPCError };

const UTF8 = new TextDecoder("utf-8", { fatal: true });

function invalid(code: number, message: string): ParsedMessage {
  return { kind: "invalid", error: { code, message } };
}

/** Reports whether `value` is a JSON object (not null, not an array). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isRequestID(value: unknown): value is RequestID {
  // MCP: an id is a string or an integer; a safe integer, so the echo is the number the client sent.
  return typeof value === "string" || (typeof value === "number" && Number.isSafeInteger(value));
}

/** Narrows the bytes of one POST body into a JSON-RPC message. */
export function parseMessage(body: Buffer): ParsedMessage {
  let value: unknown;
  try {
    // RFC 8259 §8.1: JSON text is UTF-8; invalid sequences are a parse error, not U+FFFD.
    value = JSON.parse(UTF8.decode(body));
  } catch {
    return invalid(JSONRPC_ERRORS.ParseError, "parse error: the body is not UTF-8 JSON");
  }
  // MCP 2025-06-18 changelog: JSON-RPC batching removed; one message per POST.
  if (Array.isArray(value))
    return invalid(JSONRPC_ERRORS.InvalidRequest, "invalid request: batches are not supported; send one message per POST");
  if (!isObject(value)) return invalid(JSONRPC_ERRORS.InvalidRequest, "invalid request: a message is a JSON object");
  if (value["jsonrpc"] !== "2.0") return invalid(JSONRPC_ERRORS.InvalidRequest, 'invalid request: jsonrpc must be "2.0"');
  const { id, method, params } = value;
  if (method === undefined) {
    if (("result" in value || "error" in value) && isRequestID(id)) return { kind: "response" };
    return invalid(JSONRPC_ERRORS.InvalidRequest, "invalid request: no method");
  }
  if (typeof method !== "string") return invalid(JSONRPC_ERRORS.InvalidRequest, "invalid request: method must be a string");
  if (params !== undefined && !isObject(params)) return invalid(JSONRPC_ERRORS.InvalidRequest, "invalid request: params must be an object");
  if (id === undefined) return { kind: "notification", method };
  if (!isRequestID(id)) return invalid(JSONRPC_ERRORS.InvalidRequest, "invalid request: id must be a string or a safe integer");
  return { kind: "request", id, method, params: params ?? {} };
}

/** Returns a JSON-RPC success response. */
export function resultMessage(id: RequestID, result: unknown): Record<string, unknown> {
  return { jsonrpc: "2.0", id, result };
}

/** Returns a JSON-RPC error response; without `id` when the request's id could not be read (MCP: an error response with no id). */
export function errorMessage(id: RequestID | undefined, error: RPCError): Record<string, unknown> {
  return id === undefined ? { jsonrpc: "2.0", error } : { jsonrpc: "2.0", id, error };
}
