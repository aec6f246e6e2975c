/*
 * The demo's records as MCP resources (issue 40, item 5), read by the official v2 client pinned to 2026-07-28 and by
 * the v1 SDK (2025-11-25): the capability, the URI templates (a team's naming the team), `resources/list` paged across
 * collections with the person's records only, `resources/read` of one's own record, and of another person's (or a team
 * one is not in) answered exactly as an unknown id.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { ProtocolError } from "@modelcontextprotocol/client";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { mintAgentToken, signInOverHTTP, startDemo, type Demo } from "../_support/demo.ts";
import { sendRequest, type CookieJar } from "../_support/http-client.ts";
import { connectMCP, postMCP } from "../_support/mcp-client.ts";
import { connectV2, modern, modernHeaders, V2026, type Exchange } from "../_support/mcp-v2.ts";
import { startTransportsApp } from "../_support/agent-transports.ts";

/** Creates a record at `path` as the person of `jar` and returns its id (the redirect's last segment). */
async function created(demo: Demo, jar: CookieJar, path: string, form: Record<string, string>): Promise<string> {
  const res = await sendRequest(demo.origin, "POST", path, { jar, form }, demo.origin);
  const id = res.location?.split("/").pop() ?? "";
  assert.ok(res.status === 303 && id !== "", `${path}: ${res.status} ${res.location ?? ""}`);
  return id;
}

describe("the demo's records as MCP resources", () => {
  let demo: Demo;
  let ada: CookieJar;
  let bob: CookieJar;
  let lunch: string;
  let taxi: string;
  let note: string;
  let bobs: string;
  let team: string;
  let task: string;
  before(async () => {
    demo = await startDemo();
    ada = await signInOverHTTP(demo, "ada-resources@example.com");
    bob = await signInOverHTTP(demo, "bob-resources@example.com");
    lunch = await created(demo, ada, "/expenses", { label: "Lunch", amount: "12.50", category: "meals" });
    taxi = await created(demo, ada, "/expenses", { label: "Taxi", amount: "30.00", category: "travel" });
    note = await created(demo, ada, "/notes", { title: "Receipts", body: "in the drawer" });
    bobs = await created(demo, bob, "/expenses", { label: "Bob's hotel", amount: "99.00", category: "travel" });
    team =
      (await sendRequest(demo.origin, "POST", "/teams", { jar: ada, form: { name: "Atelier" } }, demo.origin)).location?.split("/")[2] ??
      "";
    task = await created(demo, ada, `/teams/${team}/tasks`, { title: "Order oak" });
  });
  after(async () => demo?.close());

  it("offers them to the v2 client pinned to 2026-07-28: templates, the person's records paged, a read of their own", async () => {
    const wire: Exchange[] = [];
    const client = await connectV2(demo, await mintAgentToken(demo, ada, "resource-reader", "read"), wire, { pin: V2026 });
    assert.deepEqual(client.getServerCapabilities()?.resources, {});
    const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => [t.name, t.uriTemplate, t.mimeType]);
    assert.deepEqual(templates, [
      ["expenses", "latch://expenses/{id}", "application/json"],
      ["notes", "latch://notes/{id}", "application/json"],
      ["tasks", "latch://tasks/{team}/{id}", "application/json"],
    ]);

    // The client walks the pages itself (one collection's page each, the cursor opaque); Bob's expense is never among them.
    const all = await client.listResources();
    assert.deepEqual(
      all.resources.map((r) => `${r.uri} ${r.title ?? ""}`),
      [`latch://expenses/${taxi} Taxi`, `latch://expenses/${lunch} Lunch`, `latch://notes/${note} Receipts`],
    );
    const listed = wire.filter((x) => x.request.method === "resources/list");
    assert.deepEqual(
      listed.map((x) => [typeof x.request.params?.["cursor"], (x.response?.result?.["resources"] as unknown[]).length]),
      [
        ["undefined", 2],
        ["string", 1],
      ],
    );
    const page = listed[0]?.response?.result ?? {};
    assert.deepEqual([page["ttlMs"], page["cacheScope"]], [0, "private"], "records are the person's, and change");

    const own = await client.readResource({ uri: `latch://expenses/${lunch}` });
    const [content] = own.contents;
    assert.equal(content?.mimeType, "application/json");
    const record = JSON.parse(String((content as { text?: string }).text));
    assert.deepEqual([record.id, record.label, record.amount, record.category], [lunch, "Lunch", "12.50", "meals"]);
    const owned = await client.readResource({ uri: `latch://tasks/${team}/${task}` });
    assert.equal(JSON.parse(String((owned.contents[0] as { text?: string }).text)).title, "Order oak");
    await client.close();
  });

  it("answers another person's record, or a team's one is not in, exactly as an unknown id (2026: -32602)", async () => {
    const token = await mintAgentToken(demo, bob, "resource-peek", "read");
    const read = async (uri: string) => {
      const res = await postMCP(demo, token, modern(1, "resources/read", { uri }), modernHeaders("resources/read", uri));
      return { status: res.status, ...(JSON.parse(res.body) as { error?: { code: number; message: string; data: unknown } }) };
    };
    const answer = (uri: string) => ({
      status: 200,
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32602, message: "resource not found", data: { uri } },
    });
    for (const uri of [
      `latch://expenses/${lunch}`,
      "latch://expenses/AAAAAAAAAAAA",
      `latch://tasks/${team}/${task}`,
      `latch://tasks/${team}/AAAAAAAAAAAA`,
      `latch://expenses/${lunch}/more`,
      "latch://nothing/1",
      "https://example.com/",
    ])
      assert.deepEqual(await read(uri), answer(uri), uri);
    const client = await connectV2(demo, token, [], { pin: V2026 });
    await assert.rejects(
      client.readResource({ uri: `latch://expenses/${lunch}` }),
      (err: unknown) => err instanceof ProtocolError && err.code === -32602,
    );
    assert.equal(
      JSON.parse(String(((await client.readResource({ uri: `latch://expenses/${bobs}` })).contents[0] as { text?: string }).text)).label,
      "Bob's hotel",
    );
    await client.close();
    const forged = await postMCP(demo, token, modern(2, "resources/list", { cursor: "not-a-cursor" }), modernHeaders("resources/list"));
    assert.equal(JSON.parse(forged.body).error.code, -32602);
  });

  it("offers them to the v1 SDK (2025-11-25): capability, templates, list, read; another's record is -32002 as an unknown one", async () => {
    const client = await connectMCP(demo, await mintAgentToken(demo, ada, "resource-v1", "read"));
    assert.deepEqual(client.getServerCapabilities()?.resources, {});
    assert.equal((await client.listResourceTemplates()).resourceTemplates.length, 3);
    const first = await client.listResources();
    assert.deepEqual(
      first.resources.map((r) => r.uri),
      [`latch://expenses/${taxi}`, `latch://expenses/${lunch}`],
    );
    const second = await client.listResources({ cursor: String(first.nextCursor) });
    assert.deepEqual([second.resources.map((r) => r.uri), second.nextCursor], [[`latch://notes/${note}`], undefined]);
    const text = (await client.readResource({ uri: `latch://notes/${note}` })).contents[0] as { text?: string };
    assert.equal(JSON.parse(String(text.text)).body, "in the drawer");
    for (const uri of [`latch://expenses/${bobs}`, "latch://expenses/AAAAAAAAAAAA"])
      await assert.rejects(
        client.readResource({ uri }),
        (err: unknown) => err instanceof McpError && err.code === -32002 && JSON.stringify(err.data) === JSON.stringify({ uri }),
        uri,
      );
    await client.close();
  });
});

describe("an application without records", () => {
  it("declares no resources capability, in either era, and knows no resources method", async (t) => {
    const app = await startTransportsApp(t);
    const token = app.mint("read", "no-records");
    const { result } = await app.mcpInitialize(token, {});
    assert.deepEqual(result["capabilities"], { tools: { listChanged: false } });
    const legacy = JSON.parse((await app.mcp(token, { jsonrpc: "2.0", id: 2, method: "resources/templates/list" })).body);
    assert.equal(legacy.error.code, -32601);
    const discover = await app.mcp(token, modern(3, "server/discover"), { headers: modernHeaders("server/discover") });
    assert.deepEqual(JSON.parse(discover.body).result.capabilities, { tools: { listChanged: false } });
    const list = await app.mcp(token, modern(4, "resources/list"), { headers: modernHeaders("resources/list") });
    assert.deepEqual([list.status, JSON.parse(list.body).error.code], [404, -32601]);
  });
});
