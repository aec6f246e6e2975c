/*
 * The demo's MCP endpoint: the same tools, tokens and approvals as
 * /api/tools, spoken as the Model Context Protocol at /mcp, with the
 * OAuth protected resource metadata an MCP client reads after a 401, which
 * names the demo's authorization server (agents.ts).
 */
import type { AgentTokens, ToolInvoker } from "../../lib/agent/index.ts";
import { newMCPServer } from "../../lib/mcp/index.ts";
import type { Mux } from "../../lib/router/index.ts";

/** What `mountMCP` needs. */
export interface MCPDeps {
  mux: Mux;
  invoker: ToolInvoker;
  tokens: AgentTokens;
  origin: string;
  /** Seals the `requestState` of a 2026-07-28 approval answer. */
  instanceKey: string;
  /** The OAuth authorization server the metadata names (latch/oauth). */
  authorizationServer: { readonly Issuer: string; readonly Scopes: readonly string[] };
}

/** Mounts `/mcp` and its resource metadata on `deps.mux`. */
export function mountMCP(deps: MCPDeps): void {
  const mcp = newMCPServer({
    Invoker: deps.invoker,
    Tokens: deps.tokens,
    Origin: deps.origin,
    InstanceKey: deps.instanceKey,
    ApprovalPath: "/account/approvals",
    Name: "latch-demo",
    Version: "0.1.0",
    Documentation: new URL("/account/agents", deps.origin).href,
    AuthorizationServer: deps.authorizationServer,
  });
  deps.mux.Handle("/mcp", mcp.Handler);
  deps.mux.Handle("GET /.well-known/oauth-protected-resource/mcp", mcp.ResourceMetadata);
  deps.mux.Handle("GET /.well-known/oauth-protected-resource", mcp.ApplicationMetadata);
}
