/*
 * The demo's MCP endpoint driven by the official TypeScript SDK client
 * (`node dist/examples/demo/main.js`, real SMTP): a person signs in over
 * HTTP and mints agent tokens on /account/agents; agents connect with them
 * to /mcp. approval.test.ts approves a write call in real Chromium.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { mintAgentToken, signInOverHTTP, startDemo, type Demo } from "../_support/demo.ts";
import { sendRequest } from "../_support/http-client.ts";
import { connectMCP, postMCP, toolText } from "../_support/mcp-client.ts";

/** A tool as `GET /api/tools` describes it: the registry's own access, confirm sentence and arguments. */
interface APITool {
  name: string;
  description: string;
  access: "read" | "write";
  confirm?: string;
  arguments: { name: string; type: string; required: boolean; description: string; format?: string; enum?: string[] }[];
}

// The schema and hints a tool's registry entry implies: read tools are read-only;
// write tools say whether they destroy or repeat safely and carry their confirm sentence.
function assertMatchesRegistry(tool: Tool, entry: APITool | undefined): void {
  assert.ok(entry !== undefined, `${tool.name} is in /api/tools too`);
  const annotations = tool.annotations ?? {};
  assert.deepEqual(
    tool.inputSchema,
    {
      type: "object",
      // Each argument's type and description, and its format, enum or bounds when it has them (a resource's date, choice, number).
      properties: Object.fromEntries(entry.arguments.map(({ name, required: _, ...schema }) => [name, schema])),
      ...(entry.arguments.some((a) => a.required) && { required: entry.arguments.filter((a) => a.required).map((a) => a.name) }),
      additionalProperties: false,
    },
    tool.name,
  );
  assert.equal(tool.description, entry.description, tool.name);
  assert.equal(annotations.openWorldHint, false, tool.name);
  if (entry.access === "read") {
    assert.deepEqual(annotations, { readOnlyHint: true, openWorldHint: false }, tool.name);
    assert.equal(tool._meta, undefined, `${tool.name}: a read tool asks no confirmation`);
    return;
  }
  assert.equal(annotations.readOnlyHint, false, tool.name);
  assert.equal(typeof annotations.destructiveHint, "boolean", `${tool.name}: a write tool states whether it destroys`);
  assert.equal(typeof annotations.idempotentHint, "boolean", tool.name);
  assert.deepEqual(tool._meta, { "latch/confirm": entry.confirm }, `${tool.name}: a write tool carries its confirm sentence`);
}

describe("MCP endpoint of the demo (SDK client)", () => {
  let demo: Demo;
  before(async () => {
    demo = await startDemo({ JOB_STEP_MS: "50" });
  });
  after(async () => demo?.close());

  it("lists the tools a token may call in name order, with the schema and hints their access implies", async () => {
    const jar = await signInOverHTTP(demo, "ada@example.com");
    const reader = await connectMCP(demo, await mintAgentToken(demo, jar, "reader", "read"));
    const writerToken = await mintAgentToken(demo, jar, "writer", "write");
    const writer = await connectMCP(demo, writerToken);
    assert.equal(reader.getServerVersion()?.name, "latch-demo");
    const readable = (await reader.listTools()).tools;
    const all = (await writer.listTools()).tools;
    const names = all.map((t) => t.name);
    assert.deepEqual(names, [...names].sort(), "deterministic: sorted by name");
    assert.deepEqual((await writer.listTools()).tools, all, "the same list every time");
    assert.deepEqual(
      readable.map((t) => t.name),
      all.filter((t) => t.annotations?.readOnlyHint === true).map((t) => t.name),
      "a read token sees the read tools only",
    );
    const api = await sendRequest(demo.origin, "GET", "/api/tools", { headers: { Authorization: `Bearer ${writerToken}` } }, demo.origin);
    const registry = (JSON.parse(api.body) as { tools: APITool[] }).tools;
    assert.deepEqual(names, registry.map((t) => t.name).sort(), "the same tools as /api/tools");
    for (const tool of all)
      assertMatchesRegistry(
        tool,
        registry.find((t) => t.name === tool.name),
      );

    const status = all.find((t) => t.name === "job_status");
    assert.deepEqual(status?.annotations, { readOnlyHint: true, openWorldHint: false });
    assert.deepEqual(status?.inputSchema, {
      type: "object",
      properties: { id: { type: "string", description: "The id start_job returned" } },
      required: ["id"],
      additionalProperties: false,
    });
    const start = all.find((t) => t.name === "start_job");
    assert.deepEqual(start?.annotations, { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false });
    const remove = all.find((t) => t.name === "expenses_delete");
    assert.deepEqual(remove?.annotations, { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false });
    assert.deepEqual(start?._meta, { "latch/confirm": "Start a demo background job for you?" });
    assert.deepEqual(start?.inputSchema.required, undefined);
    assert.equal(
      readable.find((t) => t.name === "start_job"),
      undefined,
    );
    await reader.close();
    await writer.close();
  });

  it("runs a read tool as the token's person: their own job, never another's", async () => {
    const ada = await signInOverHTTP(demo, "ada-jobs@example.com");
    const started = await sendRequest(demo.origin, "POST", "/jobs", { jar: ada, form: { kind: "ok" } }, demo.origin);
    const id = /^\/jobs\/([^/]+)$/.exec(started.location ?? "")?.[1] ?? "";
    assert.notEqual(id, "");
    const adas = await connectMCP(demo, await mintAgentToken(demo, ada, "ada-bot", "read"));
    const own = (await adas.callTool({ name: "job_status", arguments: { id } })) as CallToolResult;
    assert.equal(own.isError, undefined);
    assert.deepEqual([(own.structuredContent as { id: string }).id, (own.structuredContent as { name: string }).name], [id, "demo"]);
    assert.deepEqual(JSON.parse(toolText(own)), own.structuredContent);

    const bob = await signInOverHTTP(demo, "bob-jobs@example.com");
    const bobs = await connectMCP(demo, await mintAgentToken(demo, bob, "bob-bot", "read"));
    const other = (await bobs.callTool({ name: "job_status", arguments: { id } })) as CallToolResult;
    assert.deepEqual([other.isError, toolText(other)], [true, "job status: no such job"]);
    const invalid = (await adas.callTool({ name: "job_status", arguments: { id: 7 } })) as CallToolResult;
    assert.deepEqual([invalid.isError, toolText(invalid)], [true, "invalid arguments: id must be a string"]);
    const extra = (await adas.callTool({ name: "job_status", arguments: { id, subject: "bob-jobs@example.com" } })) as CallToolResult;
    assert.deepEqual([extra.isError, toolText(extra)], [true, "invalid arguments: subject is not an argument of this tool"]);
    await assert.rejects(
      adas.callTool({ name: "no_such_tool", arguments: {} }),
      (err: unknown) => err instanceof McpError && err.code === -32602,
    );
    await adas.close();
    await bobs.close();
  });

  it("refuses a read token's write call, and audits every tools/call with via mcp", async () => {
    const jar = await signInOverHTTP(demo, "ada-audit@example.com");
    const token = await mintAgentToken(demo, jar, "peek", "read");
    const reader = await connectMCP(demo, token);
    // A 2025-11-25 client: the 403 scope challenge (test/mcp/scope.test.ts reads it), audited as forbidden.
    await assert.rejects(
      reader.callTool({ name: "start_job", arguments: {} }),
      (err: unknown) => err instanceof StreamableHTTPError && err.code === 403,
    );
    await reader.callTool({ name: "job_status", arguments: { id: "nope" } });
    await reader.close();
    const nameless = JSON.parse((await postMCP(demo, token, { jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: 5 } })).body);
    assert.deepEqual([nameless.id, nameless.error.code], [9, -32602]);
    const activity = await sendRequest(demo.origin, "GET", "/account/activity", { jar }, demo.origin);
    const calls = [
      ...activity.body.matchAll(
        /<li\s[^>]*data-actor="([^"]*)"\s+data-type="tool\.call"\s+data-via="([^"]*)"\s*>\s*<code>[^<]*<\/code>[^<]*<code data-agent-text dir="auto">([^<]*)<\/code> → (\w+)/g,
      ),
    ].map((m) => m.slice(1).join(" "));
    assert.deepEqual(calls, ["agent:peek mcp  unknown_tool", "agent:peek mcp job_status refused", "agent:peek mcp start_job forbidden"]);
  });

  it("refuses a token's tool calls past its rate with the JSON-RPC rate error the SDK hands over as an McpError", async () => {
    const jar = await signInOverHTTP(demo, "ada-rate@example.com");
    const client = await connectMCP(demo, await mintAgentToken(demo, jar, "hasty", "read"));
    // Sent at once, not one after another: the bucket (20 at once, one more a second) refills while a slow machine
    // answers, so 21 calls in a row may all pass; 60 at once leave 40 over the burst, which 40 s of refill would take.
    const calls = await Promise.allSettled(
      Array.from({ length: 60 }, () => client.callTool({ name: "job_status", arguments: { id: "nope" } })),
    );
    const refused = calls.filter((call) => call.status === "rejected").map((call) => call.reason as unknown);
    assert.ok(refused.length > 0, "some of 60 calls at once are over the rate");
    for (const err of refused)
      assert.ok(
        err instanceof McpError && err.code === -32029 && typeof (err.data as { retryAfter?: unknown }).retryAfter === "number",
        String(err),
      );
    await client.listTools();
    await client.close();
  });

  it("answers a request without a token 401 naming its RFC 9728 metadata, which names the application", async () => {
    const metadataURL = `${demo.origin}/.well-known/oauth-protected-resource/mcp`;
    const anonymous = await postMCP(demo, undefined, { jsonrpc: "2.0", id: 1, method: "ping" });
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.headers["www-authenticate"], `Bearer resource_metadata="${metadataURL}"`);
    const forged = await postMCP(demo, "A".repeat(43), { jsonrpc: "2.0", id: 1, method: "ping" });
    assert.equal(forged.status, 401);
    assert.equal(forged.headers["www-authenticate"], `Bearer error="invalid_token", resource_metadata="${metadataURL}"`);
    const jar = await signInOverHTTP(demo, "ada-cookie@example.com");
    const cookie = await sendRequest(
      demo.origin,
      "POST",
      "/mcp",
      { jar, headers: { "Content-Type": "application/json" }, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' },
      demo.origin,
    );
    assert.equal(cookie.status, 401, "a session cookie is not an agent token");
    await assert.rejects(connectMCP(demo, "A".repeat(43)));

    const endpoint = await sendRequest(demo.origin, "GET", metadataURL, {}, demo.origin);
    assert.deepEqual(
      [endpoint.status, JSON.parse(endpoint.body)],
      [
        200,
        {
          resource: `${demo.origin}/mcp`,
          bearer_methods_supported: ["header"],
          resource_name: "latch-demo",
          resource_documentation: `${demo.origin}/account/agents`,
          // The demo runs latch/oauth: the metadata names it (RFC 9728 §2).
          authorization_servers: [demo.origin],
          scopes_supported: ["read", "write"],
        },
      ],
    );
    const application = await sendRequest(demo.origin, "GET", "/.well-known/oauth-protected-resource", {}, demo.origin);
    assert.equal(JSON.parse(application.body).resource, demo.origin);
  });

  it("refuses a foreign Origin with 403 and answers GET 405", async () => {
    const jar = await signInOverHTTP(demo, "ada-origin@example.com");
    const token = await mintAgentToken(demo, jar, "origin-bot", "read");
    const ping = { jsonrpc: "2.0", id: 1, method: "ping" };
    assert.equal((await postMCP(demo, token, ping)).status, 200);
    for (const origin of ["http://evil.example", "null", `${demo.origin.replace("localhost", "127.0.0.1")}`]) {
      assert.equal((await postMCP(demo, token, ping, { Origin: origin })).status, 403, origin);
      const get = await sendRequest(
        demo.origin,
        "GET",
        "/mcp",
        { headers: { Origin: origin, Authorization: `Bearer ${token}` } },
        demo.origin,
      );
      assert.equal(get.status, 403, `GET from ${origin}`);
    }
    const get = await sendRequest(
      demo.origin,
      "GET",
      "/mcp",
      { headers: { Authorization: `Bearer ${token}`, Accept: "text/event-stream" } },
      demo.origin,
    );
    assert.deepEqual([get.status, get.headers["allow"]], [405, "POST, DELETE"]);
  });

  it("speaks 2025-11-25, accepts 2025-06-18 clients, and answers bad versions, methods and sessions with the protocol's errors", async () => {
    const jar = await signInOverHTTP(demo, "ada-proto@example.com");
    const token = await mintAgentToken(demo, jar, "proto-bot", "read");
    const init = (version: unknown): unknown => ({
      jsonrpc: "2.0",
      id: "init",
      method: "initialize",
      params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "raw", version: "0" } },
    });
    for (const [asked, agreed] of [
      ["2025-11-25", "2025-11-25"],
      ["2025-06-18", "2025-06-18"],
      ["2024-11-05", "2025-11-25"],
      ["1999-01-01", "2025-11-25"],
    ]) {
      const res = await postMCP(demo, token, init(asked));
      assert.equal(res.status, 200);
      assert.equal(JSON.parse(res.body).result.protocolVersion, agreed, `asked ${asked}`);
      assert.match(String(res.headers["mcp-session-id"]), /^[A-Za-z0-9_-]{43}$/);
    }
    const noVersion = JSON.parse((await postMCP(demo, token, init(7))).body);
    assert.deepEqual([noVersion.id, noVersion.error.code], ["init", -32602]);

    const session = String((await postMCP(demo, token, init("2025-06-18"))).headers["mcp-session-id"]);
    const list = { jsonrpc: "2.0", id: 2, method: "tools/list" };
    assert.equal((await postMCP(demo, token, list, { "MCP-Protocol-Version": "2025-06-18", "Mcp-Session-Id": session })).status, 200);
    assert.equal(
      (await postMCP(demo, token, { jsonrpc: "2.0", method: "notifications/initialized" }, { "Mcp-Session-Id": session })).status,
      202,
    );
    const unsupported = await postMCP(demo, token, list, { "MCP-Protocol-Version": "1999-01-01" });
    assert.equal(unsupported.status, 400);
    assert.equal(JSON.parse(unsupported.body).error.code, -32600);
    const unknown = JSON.parse((await postMCP(demo, token, { jsonrpc: "2.0", id: 3, method: "prompts/list" })).body);
    assert.deepEqual([unknown.id, unknown.error.code], [3, -32601]);

    const other = await mintAgentToken(demo, jar, "proto-other", "read");
    assert.equal((await postMCP(demo, other, list, { "Mcp-Session-Id": session })).status, 404, "a session belongs to its token");
    assert.equal((await postMCP(demo, token, list, { "Mcp-Session-Id": "nope" })).status, 404);
    const ended = await sendRequest(
      demo.origin,
      "DELETE",
      "/mcp",
      { headers: { Authorization: `Bearer ${token}`, "Mcp-Session-Id": session } },
      demo.origin,
    );
    assert.equal(ended.status, 204);
    assert.equal((await postMCP(demo, token, list, { "Mcp-Session-Id": session })).status, 404, "an ended session is gone");
  });

  it("answers a write call from a client without URL elicitation with a tool error carrying the approval URL", async () => {
    const jar = await signInOverHTTP(demo, "ada-plain@example.com");
    const client = await connectMCP(demo, await mintAgentToken(demo, jar, "plain", "write"));
    const held = (await client.callTool({ name: "start_job", arguments: { kind: "ok" } })) as CallToolResult;
    assert.equal(held.isError, true);
    const url = (held.structuredContent as { approval_url: string }).approval_url;
    assert.ok(url.startsWith(`${demo.origin}/account/approvals/`));
    assert.ok(toolText(held).includes(url));
    const page = await sendRequest(demo.origin, "GET", url, { jar }, demo.origin);
    assert.equal(page.status, 200, "the person's approval page shows the request");
    const again = (await client.callTool({ name: "start_job", arguments: { kind: "ok" } })) as CallToolResult;
    assert.equal((again.structuredContent as { approval_url: string }).approval_url, url, "the same pending request");
    await client.close();
  });
});
