/*
 * The two agent transports, the tools endpoint and MCP, over one
 * application (test/_support/agent-transports.ts): what they share must
 * come out the same on both.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { startTransportsApp } from "../_support/agent-transports.ts";

describe("Who is calling, over both transports", () => {
  it("is the agent to the tool, to Ctx.Actor and to the audit event, over /api/tools and over /mcp", async (t) => {
    const app = await startTransportsApp(t);
    const token = app.mint("read", "claude");
    const overHTTP = await app.tools(token, "whoami", {});
    assert.equal(overHTTP.status, 200, overHTTP.body);
    const overMCP = await app.mcpCall(token, "whoami", {});
    const seen = { invocation: "agent:claude", ctx: "agent:claude" };
    assert.deepEqual(JSON.parse(overHTTP.body).result, seen);
    assert.deepEqual((overMCP["result"] as Record<string, unknown>)["structuredContent"], seen);
    assert.deepEqual(
      app.audit().map((e) => [e.Actor, e.Data["tool"], e.Data["via"] ?? "tools"]),
      [["agent:claude", "whoami", "tools"], ["agent:claude", "whoami", "mcp"]],
    );
  });
});
