/*
 * MCP 2026-07-28 at the demo's /mcp, driven by the official v2 client (`@modelcontextprotocol/client`) pinned to that
 * revision, in its auto and legacy modes, and by raw POSTs for what the client never sends wrong: discovery, the tool
 * list and a read call; a write call answered `input_required` with the approval page, approved by the person over HTTP,
 * its retry run once; forged `requestState`; the version, header and method refusals the revision prescribes.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { APPROVAL_INSTRUCTION, APPROVAL_TTL } from "../../lib/agent/index.ts";
import { RequestStates, REQUEST_STATE_TTL, argumentsDigest } from "../../lib/mcp/request-state.ts";
import { mintAgentToken, signInOverHTTP, startDemo, type Demo } from "../_support/demo.ts";
import { sendRequest, type CookieJar } from "../_support/http-client.ts";
import { connectMCP, postMCP } from "../_support/mcp-client.ts";
import { connectV2, modern, modernHeaders, PROTOCOL_VERSION, CAPABILITIES, V2026, type Exchange } from "../_support/mcp-v2.ts";

/** The outcomes of `tool` on the person's activity page, newest first. */
async function outcomes(demo: Demo, jar: CookieJar, tool: string): Promise<string[]> {
  const activity = await sendRequest(demo.origin, "GET", "/account/activity", { jar }, demo.origin);
  const pattern = new RegExp(
    `data-type="tool\\.call"\\s+data-via="mcp"\\s*>\\s*<code>[^<]*</code>[^<]*<code data-agent-text dir="auto">${tool}</code> → (\\w+)`,
    "g",
  );
  return [...activity.body.matchAll(pattern)].map((m) => m[1] ?? "");
}

describe("MCP 2026-07-28 at the demo's /mcp (official v2 client)", () => {
  let demo: Demo;
  before(async () => {
    demo = await startDemo({ JOB_STEP_MS: "50" });
  });
  after(async () => demo?.close());

  it("discovers, lists the token's tools and calls a read tool pinned to 2026-07-28, statelessly, with result types and cache hints", async () => {
    const ada = await signInOverHTTP(demo, "ada-v2@example.com");
    const started = await sendRequest(demo.origin, "POST", "/jobs", { jar: ada, form: { kind: "ok" } }, demo.origin);
    const id = /^\/jobs\/([^/]+)$/.exec(started.location ?? "")?.[1] ?? "";
    const wire: Exchange[] = [];
    const client = await connectV2(demo, await mintAgentToken(demo, ada, "v2-reader", "read"), wire, { pin: V2026 });
    assert.equal(client.getNegotiatedProtocolVersion(), V2026);
    assert.deepEqual(client.getDiscoverResult()?.supportedVersions, [V2026, "2025-11-25", "2025-06-18"]);
    const tools = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(tools.includes("job_status") && !tools.includes("start_job"), "a read token sees the read tools only");
    const own = await client.callTool({ name: "job_status", arguments: { id } });
    assert.equal((own.structuredContent as { id: string }).id, id);
    await client.close();

    const [discover, list, call] = wire;
    assert.deepEqual(
      wire.map((x) => [x.request.method, x.status, x.headers.get("mcp-method"), x.headers.get("mcp-protocol-version")]),
      [
        ["server/discover", 200, "server/discover", V2026],
        ["tools/list", 200, "tools/list", V2026],
        ["tools/call", 200, "tools/call", V2026],
      ],
    );
    assert.equal(call?.headers.get("mcp-name"), "job_status");
    for (const x of wire) {
      assert.equal(x.responseHeaders.get("mcp-session-id"), null, "no session is minted");
      assert.deepEqual(x.response?.result?.["_meta"], { "io.modelcontextprotocol/serverInfo": { name: "latch-demo", version: "0.1.0" } });
      assert.equal(x.response?.result?.["resultType"], "complete");
    }
    // Caching §Cacheable Results: 5 minutes; discover is the same for all, a token's list its own.
    assert.deepEqual([discover?.response?.result?.["ttlMs"], discover?.response?.result?.["cacheScope"]], [300_000, "public"]);
    assert.deepEqual([list?.response?.result?.["ttlMs"], list?.response?.result?.["cacheScope"]], [300_000, "private"]);
    assert.equal(call?.response?.result?.["ttlMs"], undefined, "a tool call carries no cache hint");
  });

  it("answers a write call input_required with the approval page; after the person approves, the retry runs once", async () => {
    const ada = await signInOverHTTP(demo, "ada-v2-write@example.com");
    const wire: Exchange[] = [];
    const asked: string[] = [];
    const client = await connectV2(
      demo,
      await mintAgentToken(demo, ada, "v2-writer", "write"),
      wire,
      { pin: V2026 },
      { elicitation: { url: {} } },
    );
    client.setRequestHandler("elicitation/create", async (request) => {
      const url = String((request.params as { url?: unknown }).url);
      asked.push(url);
      // The person, in their own signed-in browser session, approves on the page the client opened.
      const page = await sendRequest(demo.origin, "GET", url, { jar: ada }, demo.origin);
      assert.equal(page.status, 200);
      const decided = await sendRequest(demo.origin, "POST", url, { jar: ada, form: { decision: "approve" } }, demo.origin);
      assert.ok(decided.status < 400, `approve: ${decided.status}`);
      return { action: "accept" };
    });
    const ran = await client.callTool({ name: "start_job", arguments: { kind: "ok" } });
    assert.equal(ran.isError, undefined);
    assert.equal(asked.length, 1);
    assert.ok(asked[0]?.startsWith(`${demo.origin}/account/approvals/`), asked[0]);

    const calls = wire.filter((x) => x.request.method === "tools/call");
    const held = calls[0]?.response?.result ?? {};
    assert.equal(held["resultType"], "input_required");
    assert.deepEqual(held["inputRequests"], {
      approval: { method: "elicitation/create", params: { mode: "url", url: asked[0], message: APPROVAL_INSTRUCTION } },
    });
    const state = held["requestState"];
    assert.equal(typeof state, "string");
    const retry = calls[1]?.request.params ?? {};
    assert.deepEqual([retry["requestState"], retry["inputResponses"]], [state, { approval: { action: "accept" } }]);
    assert.deepEqual(await outcomes(demo, ada, "start_job"), ["ok", "started", "approval_required"]);

    // The retry presented by another of the person's tokens is refused: a state is bound to the token it was issued to.
    const other = await mintAgentToken(demo, ada, "v2-writer-2", "write");
    const replay = { jsonrpc: "2.0", id: 7, method: "tools/call", params: retry };
    const refused = await postMCP(demo, other, replay, modernHeaders("tools/call", "start_job"));
    assert.deepEqual([refused.status, JSON.parse(refused.body).error.code], [400, -32602]);
    await client.close();
    assert.equal((await outcomes(demo, ada, "start_job")).filter((o) => o === "ok").length, 1);
  });

  it("runs the approved call once: a second retry with the same requestState waits for a new approval", async () => {
    const ada = await signInOverHTTP(demo, "ada-v2-once@example.com");
    const token = await mintAgentToken(demo, ada, "v2-once", "write");
    const capabilities = { elicitation: { url: {} } };
    const call = (id: number, extra: Record<string, unknown> = {}) =>
      postMCP(
        demo,
        token,
        modern(id, "tools/call", { name: "start_job", arguments: { kind: "ok" }, ...extra }, capabilities),
        modernHeaders("tools/call", "start_job"),
      );
    const first = JSON.parse((await call(1)).body).result;
    assert.equal(first.resultType, "input_required");
    const url = first.inputRequests.approval.params.url as string;
    assert.ok((await sendRequest(demo.origin, "POST", url, { jar: ada, form: { decision: "approve" } }, demo.origin)).status < 400);
    const retry = { requestState: first.requestState, inputResponses: { approval: { action: "accept" } } };
    const done = JSON.parse((await call(2, retry)).body).result;
    assert.deepEqual([done.resultType, done.isError], ["complete", undefined]);
    const second = JSON.parse((await call(3, retry)).body).result;
    assert.equal(second.resultType, "input_required", "the spent approval does not run the call again");
    assert.notEqual(second.inputRequests.approval.params.url, url, "a new approval is asked for");
    assert.deepEqual((await outcomes(demo, ada, "start_job")).filter((o) => o === "ok").length, 1);

    // A forged or altered requestState, or one presented for other arguments, is refused and nothing runs.
    const before = (await outcomes(demo, ada, "start_job")).length;
    const flipped = String(first.requestState).replace(/.$/, (c) => (c === "A" ? "B" : "A"));
    for (const [requestState, args] of [
      [flipped, { kind: "ok" }],
      [first.requestState, { kind: "fail" }],
      ["forged", { kind: "ok" }],
      [7, { kind: "ok" }],
    ] as const) {
      const res = await postMCP(
        demo,
        token,
        modern(4, "tools/call", { name: "start_job", arguments: args, requestState }, capabilities),
        modernHeaders("tools/call", "start_job"),
      );
      assert.deepEqual([res.status, JSON.parse(res.body).error.code], [400, -32602], String(requestState));
    }
    assert.equal((await outcomes(demo, ada, "start_job")).length, before, "a refused state is no call");
    // Declining to open the page: the approval URL goes to the model as a tool error.
    const declined = JSON.parse((await call(5, { inputResponses: { approval: { action: "decline" } } })).body).result;
    assert.deepEqual([declined.resultType, declined.isError, declined.structuredContent.status], ["complete", true, "approval_required"]);
  });

  it("runs the calls a standing approval covers without asking, on the 2026 wire; past its count, asks again", async () => {
    const ada = await signInOverHTTP(demo, "ada-v2-standing@example.com");
    const asked: string[] = [];
    const client = await connectV2(
      demo,
      await mintAgentToken(demo, ada, "v2-standing", "write"),
      [],
      { pin: V2026 },
      { elicitation: { url: {} } },
    );
    client.setRequestHandler("elicitation/create", async (request) => {
      const url = String((request.params as { url?: unknown }).url);
      asked.push(url);
      // The person approves this call and the next one like it, for an hour (lib/agent/standing.ts).
      const form = { decision: "standing", calls: "2", hours: "1" };
      const decided = await sendRequest(demo.origin, "POST", url, { jar: ada, form }, demo.origin);
      assert.equal(decided.status, 303, `standing: ${decided.status}`);
      return { action: "accept" };
    });
    const start = () => client.callTool({ name: "start_job", arguments: { kind: "ok" } });
    assert.equal((await start()).isError, undefined);
    assert.equal(asked.length, 1, "the first call asks its person");
    assert.equal((await start()).isError, undefined);
    assert.equal(asked.length, 1, "the second runs under the standing approval, asking no one");
    assert.equal((await start()).isError, undefined);
    assert.equal(asked.length, 2, "the third is past its two calls: asked again");
    await client.close();
    assert.equal((await outcomes(demo, ada, "start_job")).filter((o) => o === "ok").length, 3);
  });

  it("answers an unsupported version with -32022 naming the supported ones, and refuses mismatched headers and unknown methods", async () => {
    const jar = await signInOverHTTP(demo, "ada-v2-proto@example.com");
    const token = await mintAgentToken(demo, jar, "v2-proto", "read");
    const future = {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/list",
      params: { _meta: { [PROTOCOL_VERSION]: "2099-01-01", [CAPABILITIES]: {} } },
    };
    const unsupported = await postMCP(demo, token, future, { "MCP-Protocol-Version": "2099-01-01", "Mcp-Method": "tools/list" });
    assert.equal(unsupported.status, 400);
    assert.deepEqual(JSON.parse(unsupported.body).error.data, { supported: [V2026, "2025-11-25", "2025-06-18"], requested: "2099-01-01" });
    assert.equal(JSON.parse(unsupported.body).error.code, -32022);

    const refused = async (body: unknown, headers: Record<string, string>): Promise<[number, number]> => {
      const res = await postMCP(demo, token, body, headers);
      return [res.status, JSON.parse(res.body).error.code];
    };
    assert.deepEqual(await refused(modern(2, "tools/list"), modernHeaders("tools/call")), [400, -32020], "Mcp-Method differs");
    assert.deepEqual(await refused(modern(3, "tools/list"), { "MCP-Protocol-Version": V2026 }), [400, -32020], "Mcp-Method missing");
    assert.deepEqual(
      await refused(modern(4, "tools/list"), { "Mcp-Method": "tools/list", "MCP-Protocol-Version": "2025-11-25" }),
      [400, -32020],
    );
    const call = modern(5, "tools/call", { name: "job_status", arguments: { id: "x" } });
    assert.deepEqual(await refused(call, modernHeaders("tools/call", "start_job")), [400, -32020], "Mcp-Name differs");
    assert.deepEqual(await refused(call, modernHeaders("tools/call")), [400, -32020], "Mcp-Name missing");
    const encoded = `=?base64?${Buffer.from("job_status").toString("base64")}?=`;
    assert.equal((await postMCP(demo, token, call, modernHeaders("tools/call", encoded))).status, 200, "a Base64 Mcp-Name is decoded");
    const bare = { jsonrpc: "2.0", id: 6, method: "tools/list", params: { _meta: { [PROTOCOL_VERSION]: V2026 } } };
    assert.deepEqual(await refused(bare, modernHeaders("tools/list")), [400, -32602], "clientCapabilities missing");
    assert.deepEqual(await refused({ jsonrpc: "2.0", id: 7, method: "tools/list" }, modernHeaders("tools/list")), [400, -32602]);
    for (const method of ["ping", "initialize", "prompts/list"])
      assert.deepEqual(await refused(modern(8, method), modernHeaders(method)), [404, -32601], method);
  });

  it("refuses a token's 2026 tool calls past its rate with a code outside the range MCP reserves", async () => {
    const jar = await signInOverHTTP(demo, "ada-v2-rate@example.com");
    const token = await mintAgentToken(demo, jar, "v2-hasty", "read");
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        postMCP(
          demo,
          token,
          modern(i, "tools/call", { name: "job_status", arguments: { id: "nope" } }),
          modernHeaders("tools/call", "job_status"),
        ),
      ),
    );
    const errors = answers.map((a) => JSON.parse(a.body).error).filter((e) => e !== undefined);
    assert.ok(errors.length > 0, "some of 60 calls at once are over the rate");
    for (const error of errors) assert.deepEqual([error.code, typeof error.data.retryAfter], [-31029, "number"]);
  });

  it("still speaks 2025 to the v2 client in its legacy mode, to its auto mode as 2026-07-28, and to the v1 SDK", async () => {
    const jar = await signInOverHTTP(demo, "ada-v2-eras@example.com");
    const token = await mintAgentToken(demo, jar, "v2-eras", "read");
    const legacyWire: Exchange[] = [];
    const legacy = await connectV2(demo, token, legacyWire, "legacy");
    assert.equal(legacy.getNegotiatedProtocolVersion(), "2025-11-25");
    assert.ok((await legacy.listTools()).tools.length > 0);
    assert.equal(legacyWire[0]?.request.method, "initialize");
    assert.equal(legacyWire.find((x) => x.request.method === "tools/list")?.response?.result?.["resultType"], undefined);
    await legacy.close();
    const auto = await connectV2(demo, token, [], "auto");
    assert.equal(auto.getNegotiatedProtocolVersion(), V2026);
    assert.ok((await auto.listTools()).tools.length > 0);
    await auto.close();
    const v1 = await connectMCP(demo, token);
    assert.ok((await v1.listTools()).tools.length > 0);
    await v1.close();
  });
});

describe("requestState", () => {
  const states = new RequestStates("an instance key of at least thirty-two bytes");
  const call = { TokenID: "t1", Tool: "start_job", Args: argumentsDigest({ kind: "ok", n: 1 }) ?? "" };
  const now = new Date("2030-01-01T00:00:00Z");

  it("is accepted for twice APPROVAL_TTL (10 minutes), for its token, tool and arguments only", () => {
    assert.equal(REQUEST_STATE_TTL, 2 * APPROVAL_TTL);
    assert.equal(REQUEST_STATE_TTL, 600_000);
    const state = states.seal({ ...call, Approval: "a".repeat(22) }, now);
    assert.equal(states.verify(state, call, new Date(now.getTime() + 600_000 - 1)), true);
    assert.equal(states.verify(state, call, new Date(now.getTime() + 600_000)), false, "expired");
    assert.equal(states.verify(state, { ...call, TokenID: "t2" }, now), false);
    assert.equal(states.verify(state, { ...call, Tool: "expenses_delete" }, now), false);
    assert.equal(states.verify(state, { ...call, Args: argumentsDigest({ kind: "ok", n: 2 }) ?? "" }, now), false);
    assert.equal(
      states.verify(state, { ...call, Args: argumentsDigest({ n: 1, kind: "ok" }) ?? "" }, now),
      true,
      "key order is not the call",
    );
    assert.equal(new RequestStates("another instance key, also thirty-two bytes").verify(state, call, now), false, "another key");
    assert.equal(argumentsDigest({ nested: { deep: 1 } }), undefined);
  });
});
