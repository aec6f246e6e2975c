import assert from "node:assert/strict";
import { it } from "node:test";
import { newMCPServer } from "../../lib/mcp/index.ts";
import { fetchHTTP } from "../_support/http.ts";
import { startServer } from "../_support/server.ts";
import { startOAuthApp } from "./_app.ts";

it("the MCP resource metadata names latch as its authorization server and the scopes, when the app configures one (RFC 9728 §2)", async (t) => {
  const app = await startOAuthApp(t);
  const config = {
    Invoker: {} as never,
    Tokens: app.tokens,
    Origin: "http://app.test",
    ApprovalPath: "/approvals",
    Name: "app",
    Version: "1",
  };
  const plain = newMCPServer(config);
  const withServer = newMCPServer({ ...config, AuthorizationServer: { Issuer: "http://app.test", Scopes: ["read", "write"] } });
  for (const [handler, expected] of [
    [plain.ResourceMetadata, {}],
    [withServer.ResourceMetadata, { authorization_servers: ["http://app.test"], scopes_supported: ["read", "write"] }],
  ] as const) {
    const server = await startServer(t, handler);
    const res = await fetchHTTP(server.port, "/.well-known/oauth-protected-resource/mcp");
    assert.deepEqual(JSON.parse(res.body), {
      resource: "http://app.test/mcp",
      bearer_methods_supported: ["header"],
      resource_name: "app",
      ...expected,
    });
  }
});
