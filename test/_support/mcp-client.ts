/*
 * MCP clients for the demo's /mcp: the official TypeScript SDK client
 * (a real peer, as an MCP host would run it) with an agent token in
 * `Authorization: Bearer`, and a raw POST for what the SDK never sends.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult, ClientCapabilities } from "@modelcontextprotocol/sdk/types.js";
import type { Demo } from "./demo.ts";
import { sendRequest, type TestResponse } from "./http-client.ts";

export { Client };

// The SDK's declarations name the DOM's HeadersInit, which this project's lib (no DOM) lacks; Node's fetch takes the same.
declare global {
  type HeadersInit = ConstructorParameters<typeof Headers>[0];
}

/**
 * Connects an SDK client to `demo`'s /mcp (or any app's at its origin) with `token`, declaring `capabilities`; the
 * caller closes it. The transport fetches with `fetchWith` when given (a test reading the answers the SDK got).
 */
export async function connectMCP(
  demo: Pick<Demo, "origin">,
  token: string,
  capabilities: ClientCapabilities = {},
  fetchWith?: typeof fetch,
): Promise<Client> {
  const client = new Client({ name: "latch-test-agent", version: "1.0.0" }, { capabilities });
  const transport = new StreamableHTTPClientTransport(new URL("/mcp", demo.origin), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
    ...(fetchWith !== undefined && { fetch: fetchWith }),
  });
  await client.connect(transport);
  return client;
}

/** POSTs `body` (JSON-encoded unless a string or bytes) to /mcp with `headers` added to JSON and same-origin ones. */
export function postMCP(demo: Demo, token: string | undefined, body: unknown, headers: Record<string, string> = {}): Promise<TestResponse> {
  const raw = typeof body === "string" || Buffer.isBuffer(body) ? body : JSON.stringify(body);
  return sendRequest(
    demo.origin,
    "POST",
    "/mcp",
    {
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        ...(token !== undefined && { Authorization: `Bearer ${token}` }),
        ...headers,
      },
      body: raw,
    },
    demo.origin,
  );
}

/** The text of a tool result's content. */
export function toolText(result: CallToolResult): string {
  return result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
}
