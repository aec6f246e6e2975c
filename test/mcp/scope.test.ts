/*
 * A read grant calling a write tool at the demo's /mcp (issue 40, item 4): on the 2026-07-28 wire and to a 2025-11-25
 * client, the 403 scope challenge their authorization pages prescribe (§Runtime Insufficient Scope Errors, RFC 6750
 * §3.1), read by the official v2 client as the step-up it offers its host; to a 2025-06-18 client, the tool error it
 * always had. The call is refused and audited, nothing runs.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { InsufficientScopeError } from "@modelcontextprotocol/client";
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { mintAgentToken, signInOverHTTP, startDemo, type Demo } from "../_support/demo.ts";
import { sendRequest, type CookieJar } from "../_support/http-client.ts";
import { connectMCP, postMCP, toolText } from "../_support/mcp-client.ts";
import { connectV2, modern, modernHeaders, V2026, type Exchange } from "../_support/mcp-v2.ts";

/** The outcomes of the person's `start_job` calls over MCP, newest first. */
async function startJobOutcomes(demo: Demo, jar: CookieJar): Promise<string[]> {
  const activity = await sendRequest(demo.origin, "GET", "/account/activity", { jar }, demo.origin);
  const pattern =
    /data-type="tool\.call"\s+data-via="mcp"\s*>\s*<code>[^<]*<\/code>[^<]*<code data-agent-text dir="auto">start_job<\/code> → (\w+)/g;
  return [...activity.body.matchAll(pattern)].map((m) => m[1] ?? "");
}

describe("a read grant's write call at the demo's /mcp", () => {
  let demo: Demo;
  let challenge: string;
  before(async () => {
    demo = await startDemo();
    challenge =
      `Bearer error="insufficient_scope", scope="write", ` +
      `resource_metadata="${demo.origin}/.well-known/oauth-protected-resource/mcp", ` +
      `error_description="this token may only call read tools"`;
  });
  after(async () => demo?.close());

  it("is a 403 naming the write scope on the 2026-07-28 wire, which the v2 client reads as insufficient scope", async () => {
    const jar = await signInOverHTTP(demo, "ada-scope@example.com");
    const token = await mintAgentToken(demo, jar, "scope-reader", "read");
    const wire: Exchange[] = [];
    const client = await connectV2(demo, token, wire, { pin: V2026 });
    await assert.rejects(
      client.callTool({ name: "start_job", arguments: { kind: "ok" } }),
      (err: unknown) =>
        err instanceof InsufficientScopeError &&
        err.requiredScope === "write" &&
        err.errorDescription === "this token may only call read tools" &&
        err.resourceMetadataUrl?.href === `${demo.origin}/.well-known/oauth-protected-resource/mcp`,
    );
    await client.close();
    const refused = wire.find((x) => x.request.method === "tools/call");
    assert.equal(refused?.status, 403);

    // The bytes on the wire: status, the challenge, and the JSON-RPC error answering the request's id.
    const raw = await postMCP(
      demo,
      token,
      modern(7, "tools/call", { name: "start_job", arguments: { kind: "ok" } }),
      modernHeaders("tools/call", "start_job"),
    );
    assert.equal(raw.status, 403);
    assert.equal(raw.headers["www-authenticate"], challenge);
    assert.deepEqual(JSON.parse(raw.body), {
      jsonrpc: "2.0",
      id: 7,
      error: { code: -32600, message: "insufficient scope: this token may only call read tools; the call needs scope write" },
    });
    assert.deepEqual(await startJobOutcomes(demo, jar), ["forbidden", "forbidden"], "refused, audited, never run");
  });

  it("is the same 403 to a 2025-11-25 client (the v1 SDK), and the tool error to a 2025-06-18 one", async () => {
    const jar = await signInOverHTTP(demo, "ada-scope-2025@example.com");
    const token = await mintAgentToken(demo, jar, "scope-reader-2025", "read");
    let answered: Response | undefined;
    const watching: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      if (typeof init?.body === "string" && init.body.includes('"tools/call"')) answered = res;
      return res;
    };
    const v1 = await connectMCP(demo, token, {}, watching);
    await assert.rejects(
      v1.callTool({ name: "start_job", arguments: {} }),
      (err: unknown) => err instanceof StreamableHTTPError && err.code === 403,
    );
    await v1.close();
    assert.equal(answered?.headers.get("www-authenticate"), challenge);

    // 2025-06-18's authorization has no runtime scope challenge: its client keeps the tool error.
    const init = { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "old", version: "1" } };
    const opened = await postMCP(demo, token, { jsonrpc: "2.0", id: 1, method: "initialize", params: init });
    const session = String(opened.headers["mcp-session-id"]);
    const call = { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "start_job", arguments: {} } };
    const old = await postMCP(demo, token, call, { "Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-06-18" });
    assert.equal(old.status, 200);
    const result = JSON.parse(old.body).result as CallToolResult;
    assert.deepEqual([result.isError, toolText(result)], [true, "forbidden: this token may only call read tools"]);
    assert.deepEqual(await startJobOutcomes(demo, jar), ["forbidden", "forbidden"]);
  });
});
