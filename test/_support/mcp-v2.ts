/*
 * The official v2 MCP client (`@modelcontextprotocol/client`) connected to the demo's /mcp, every exchange recorded, and
 * raw MCP 2026-07-28 requests for what the client never sends wrong.
 */
import { Client, StreamableHTTPClientTransport, type OAuthClientProvider } from "@modelcontextprotocol/client";
import type { Demo } from "./demo.ts";

export const V2026 = "2026-07-28";
export const PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
export const CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";

/** One exchange the client had with /mcp: the request body, the answer's status and body. */
export interface Exchange {
  request: { method?: string; params?: Record<string, unknown> };
  headers: Headers;
  status: number;
  response: { result?: Record<string, unknown>; error?: { code: number } } | undefined;
  responseHeaders: Headers;
}

/**
 * Connects the v2 client to the demo with `token` (an agent token, or an OAuth provider the transport asks); `mode` as
 * `versionNegotiation.mode`; every exchange lands in `wire`.
 */
export async function connectV2(
  demo: Demo,
  token: string | OAuthClientProvider,
  wire: Exchange[],
  mode: "legacy" | "auto" | { pin: string },
  capabilities: Record<string, unknown> = {},
): Promise<Client> {
  const client = new Client({ name: "latch-v2-agent", version: "1.0.0" }, { capabilities, versionNegotiation: { mode } });
  const recording = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const res = await fetch(input, init);
    const text = await res.clone().text();
    const body = typeof init?.body === "string" ? (JSON.parse(init.body) as Exchange["request"]) : {};
    const response = text === "" ? undefined : (JSON.parse(text) as Exchange["response"]);
    wire.push({ request: body, headers: new Headers(init?.headers), status: res.status, response, responseHeaders: res.headers });
    return res;
  };
  const transport = new StreamableHTTPClientTransport(new URL("/mcp", demo.origin), {
    ...(typeof token === "string" ? { requestInit: { headers: { Authorization: `Bearer ${token}` } } } : { authProvider: token }),
    fetch: recording,
  });
  await client.connect(transport);
  return client;
}

/** A raw 2026-07-28 request: `params` with the per-request `_meta`, and the headers that mirror it. */
export function modern(
  id: number,
  method: string,
  params: Record<string, unknown> = {},
  capabilities: Record<string, unknown> = {},
): unknown {
  return { jsonrpc: "2.0", id, method, params: { ...params, _meta: { [PROTOCOL_VERSION]: V2026, [CAPABILITIES]: capabilities } } };
}

/** The headers mirroring a raw 2026-07-28 request's method and, for `tools/call` and `resources/read`, its name. */
export function modernHeaders(method: string, name?: string): Record<string, string> {
  return { "MCP-Protocol-Version": V2026, "Mcp-Method": method, ...(name !== undefined && { "Mcp-Name": name }) };
}
