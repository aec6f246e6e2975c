/*
 * The two agent transports, the tools endpoint and MCP, over one
 * application (test/_support/agent-transports.ts): what they share must
 * come out the same on both.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { APPROVAL_INSTRUCTION } from "../../lib/agent/index.ts";
import { DEFAULT_BODY_LIMIT } from "../../lib/http/index.ts";
import { JSONRPC_ERRORS } from "../../lib/mcp/jsonrpc.ts";
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
      [
        ["agent:claude", "whoami", "tools"],
        ["agent:claude", "whoami", "mcp"],
      ],
    );
  });
});

describe("A body the client got wrong, over both transports", () => {
  it("is refused at the same status with the same reason, each in its transport's JSON error shape", async (t) => {
    const app = await startTransportsApp(t);
    const token = app.mint("read", "claude");
    const tooLarge = JSON.stringify({ pad: "x".repeat(DEFAULT_BODY_LIMIT) });
    const overHTTP = await app.tools(token, "whoami", tooLarge);
    const overMCP = await app.mcp(token, tooLarge);
    const reason = `read body: larger than ${DEFAULT_BODY_LIMIT} bytes`;
    assert.deepEqual([overHTTP.status, JSON.parse(overHTTP.body)], [413, { error: reason }]);
    assert.deepEqual(
      [overMCP.status, JSON.parse(overMCP.body)],
      [413, { jsonrpc: "2.0", error: { code: JSONRPC_ERRORS.InvalidRequest, message: reason } }],
    );
  });
});

describe("The approval instruction, over both transports", () => {
  it("is one sentence: the tools endpoint's 202, MCP's instructions, its URL elicitation and its tool error", async (t) => {
    const app = await startTransportsApp(t);
    assert.equal(
      APPROVAL_INSTRUCTION,
      "A write call runs only after the person you act for approves it at the approval URL you are given; then repeat the call unchanged.",
    );
    const token = app.mint("write", "claude");
    const overHTTP = await app.tools(token, "counter_add", { by: 1 });
    assert.equal(overHTTP.status, 202);
    assert.equal(JSON.parse(overHTTP.body).message, APPROVAL_INSTRUCTION);

    const eliciting = await app.mcpInitialize(token, { elicitation: { url: {} } });
    assert.equal(eliciting.result["instructions"], APPROVAL_INSTRUCTION);
    const elicited = await app.mcpCall(token, "counter_add", { by: 2 }, eliciting.session);
    const [elicitation] = (elicited["error"] as { data: { elicitations: { url: string; message: string }[] } }).data.elicitations;
    assert.equal(elicitation?.message, APPROVAL_INSTRUCTION);

    const plain = await app.mcpCall(token, "counter_add", { by: 3 });
    const result = plain["result"] as { content: { text: string }[]; structuredContent: { approval_url: string } };
    assert.equal(result.content[0]?.text, `approval required: ${result.structuredContent.approval_url}\n${APPROVAL_INSTRUCTION}`);
  });
});

describe("Tool calls past a token's rate, over both transports", () => {
  it("are counted together and refused: 429 with Retry-After over /api/tools, the JSON-RPC rate error over /mcp", async (t) => {
    const app = await startTransportsApp(t);
    const token = app.mint("read", "claude");
    for (let i = 0; i < 10; i++) assert.equal((await app.tools(token, "whoami", {})).status, 200);
    for (let i = 0; i < 10; i++) assert.equal((await app.mcpCall(token, "whoami", {}))["error"], undefined);
    const overHTTP = await app.tools(token, "whoami", {});
    assert.deepEqual(
      [overHTTP.status, overHTTP.headers["retry-after"], JSON.parse(overHTTP.body)],
      [429, "1", { error: "rate limited: too many tool calls for this token; retry after 1 s" }],
    );
    const overMCP = await app.mcp(token, { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "whoami", arguments: {} } });
    assert.equal(overMCP.status, 200, "MCP: a request is answered with its JSON-RPC response");
    assert.deepEqual(JSON.parse(overMCP.body), {
      jsonrpc: "2.0",
      id: 7,
      error: { code: JSONRPC_ERRORS.RateLimited, message: "rate limited: too many tool calls for this token", data: { retryAfter: 1 } },
    });
    assert.equal(JSONRPC_ERRORS.RateLimited, -32029);
    assert.equal((await app.mcp(token, { jsonrpc: "2.0", id: 8, method: "tools/list" })).status, 200, "only tool calls are counted");
    assert.equal(app.audit().length, 20, "a refused call runs nothing and leaves no event to push others out");

    const other = app.mint("read", "other");
    assert.equal((await app.tools(other, "whoami", {})).status, 200, "another token is not slowed");
    app.clock.advance(1000);
    assert.equal((await app.tools(token, "whoami", {})).status, 200, "a second later, one call is back");
    assert.equal((await app.mcpCall(token, "whoami", {}))["error"] !== undefined, true, "and only one");
  });
});
