/*
 * The 2026-07-28 wire on the shared endpoint (README, "MCP 2026-07-28"): which requests are of that era, and the checks
 * its transport puts on each before any method runs (the protocol version in `_meta` and its header, `Mcp-Method`,
 * `Mcp-Name`, the client's capabilities). No `initialize`, no session: every request says all of it again.
 */
import type { IncomingMessage } from "node:http";
import { JSONRPC_ERRORS, isObject, type ParsedMessage, type RPCError } from "./jsonrpc.ts";
import { MCP_PROTOCOL_VERSIONS } from "./methods.ts";

/** The stateless revision spoken without `initialize`. */
export const MCP_MODERN_VERSION = "2026-07-28";

/** Every revision of the per-request era spoken here, newest first. */
export const MCP_MODERN_VERSIONS: readonly string[] = Object.freeze([MCP_MODERN_VERSION]);

/** Every revision spoken here, both eras, newest first: `server/discover`'s `supportedVersions` and -32022's `supported`. */
export const MCP_ALL_VERSIONS: readonly string[] = Object.freeze([...MCP_MODERN_VERSIONS, ...MCP_PROTOCOL_VERSIONS]);

/** The `_meta` keys MCP 2026-07-28 reserves for the per-request protocol fields (basic §_meta). */
export const META: Readonly<{ ProtocolVersion: string; ClientCapabilities: string; ServerInfo: string }> = Object.freeze({
  ProtocolVersion: "io.modelcontextprotocol/protocolVersion",
  ClientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  ServerInfo: "io.modelcontextprotocol/serverInfo",
});

/** The body field `Mcp-Name` mirrors, per method (transports §Standard Request Headers). */
const NAMED: Readonly<Record<string, "name" | "uri">> = { "tools/call": "name", "prompts/get": "name", "resources/read": "uri" };

/** A request's `_meta`, when it is an object. */
function metaOf(params: Record<string, unknown>): Record<string, unknown> | undefined {
  const meta = params["_meta"];
  return isObject(meta) ? meta : undefined;
}

/**
 * Reports whether `message` is of the 2026-07-28 era: its `MCP-Protocol-Version` header names a revision of that era,
 * or its `_meta` names a protocol version that is not one of the 2025 revisions (versioning §Backward Compatibility: a
 * request carrying per-request `_meta` is served statelessly; an `initialize` selects the 2025 rules).
 */
export function claimsModern(message: ParsedMessage, headerVersion: string | undefined): boolean {
  if (headerVersion !== undefined && MCP_MODERN_VERSIONS.includes(headerVersion)) return true;
  if (message.kind !== "request") return false;
  const version = metaOf(message.params)?.[META.ProtocolVersion];
  return typeof version === "string" && !MCP_PROTOCOL_VERSIONS.includes(version);
}

/** A request that passed the 2026-07-28 checks, with the capabilities its client declared; or the refusal it earns. */
export type ModernCheck = { ok: true; capabilities: Record<string, unknown> } | { ok: false; status: number; error: RPCError };

function refusal(status: number, code: number, message: string, data?: unknown): ModernCheck {
  return { ok: false, status, error: { code, message, ...(data !== undefined && { data }) } };
}

function mismatch(message: string): ModernCheck {
  // Transports §Server Validation: a missing, malformed or mismatched header is a 400 with HeaderMismatch.
  return refusal(400, JSONRPC_ERRORS.HeaderMismatch, `header mismatch: ${message}`);
}

const HEADER_SAFE = /^[\x20-\x7e\t]*$/;
const BASE64_SENTINEL = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/;

/**
 * Returns a header value as the body would carry it: the Base64 sentinel (`=?base64?…?=`) decoded (transports §Value
 * Encoding: servers MUST decode before comparing), `undefined` for a value with characters outside visible ASCII, space
 * and tab (RFC 9110 §5.5), or a sentinel whose Base64 is not canonical.
 */
export function decodeHeaderValue(value: string): string | undefined {
  if (!HEADER_SAFE.test(value)) return undefined;
  const encoded = BASE64_SENTINEL.exec(value)?.[1];
  if (encoded === undefined) return value;
  const bytes = Buffer.from(encoded, "base64");
  return bytes.toString("base64") === encoded ? bytes.toString("utf8") : undefined;
}

function headerOf(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(",") : value;
}

/** Checks request `method` with `params` as MCP 2026-07-28 requires of every request before it is served. */
export function checkModern(req: IncomingMessage, method: string, params: Record<string, unknown>): ModernCheck {
  const meta = metaOf(params);
  const version = meta?.[META.ProtocolVersion];
  // Basic §_meta: a request missing a required per-request field is malformed: -32602 in a 400.
  if (meta === undefined || typeof version !== "string")
    return refusal(400, JSONRPC_ERRORS.InvalidParams, `invalid params: _meta["${META.ProtocolVersion}"] must be a string`);
  // Transports §Protocol Version Header: the header MUST be there and match the body's version.
  const headerVersion = headerOf(req, "mcp-protocol-version");
  if (headerVersion === undefined) return mismatch("MCP-Protocol-Version is missing");
  if (headerVersion !== version) return mismatch("MCP-Protocol-Version does not match _meta's protocol version");
  // Versioning §Protocol Version Negotiation: an unsupported version names the supported ones, so the client can pick.
  if (!MCP_MODERN_VERSIONS.includes(version)) {
    const data = { supported: [...MCP_ALL_VERSIONS], requested: version.slice(0, 64) };
    return refusal(400, JSONRPC_ERRORS.UnsupportedProtocolVersion, "unsupported protocol version", data);
  }
  const methodHeader = headerOf(req, "mcp-method");
  if (methodHeader === undefined) return mismatch("Mcp-Method is missing");
  if (methodHeader !== method) return mismatch("Mcp-Method does not match the body's method");
  const field = NAMED[method];
  if (field !== undefined) {
    const value = params[field];
    if (typeof value !== "string") return refusal(400, JSONRPC_ERRORS.InvalidParams, `invalid params: ${field} must be a string`);
    const name = headerOf(req, "mcp-name");
    if (name === undefined) return mismatch("Mcp-Name is missing");
    if (decodeHeaderValue(name) !== value) return mismatch(`Mcp-Name does not match the body's ${field}`);
  }
  const capabilities = meta[META.ClientCapabilities];
  if (!isObject(capabilities))
    return refusal(400, JSONRPC_ERRORS.InvalidParams, `invalid params: _meta["${META.ClientCapabilities}"] must be an object`);
  return { ok: true, capabilities };
}
