/*
 * The parts of latch/mcp without a server: tool hints per method, the
 * input schema, the session bound, and the metadata URL rule.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { defineAction, ToolRead, ToolWrite } from "../../lib/agent/index.ts";
import type { ToolMethod } from "../../lib/agent/action.ts";
import { resourceMetadataURL, RESOURCE_METADATA_PATH } from "../../lib/mcp/resource-metadata.ts";
import { MCP_PROTOCOL_VERSION, MCP_PROTOCOL_VERSIONS } from "../../lib/mcp/server.ts";
import { MAX_MCP_SESSIONS, MAX_MCP_SESSIONS_PER_PERSON, MAX_MCP_SESSIONS_PER_TOKEN, MCPSessions } from "../../lib/mcp/sessions.ts";
import { CONFIRM_META_KEY, describeMCPTool } from "../../lib/mcp/tools.ts";

const tool = (method: ToolMethod) =>
  defineAction({
    name: `t_${method.toLowerCase()}`,
    method,
    route: "/t",
    handler: () => undefined,
    tool:
      method === "GET"
        ? { Description: "reads", Access: ToolRead }
        : {
            Description: "writes",
            Access: ToolWrite,
            Confirm: "Do it?",
            Args: [
              { Name: "n", Type: "number", Required: true, Description: "a number" },
              { Name: "b", Type: "boolean", Description: "a flag" },
            ],
          },
    run: () => null,
  });

describe("describeMCPTool", () => {
  it("derives the hints from access and method: read-only for GET, destructive for DELETE, idempotent for PUT and DELETE", () => {
    const hints = Object.fromEntries(
      (["GET", "POST", "PUT", "PATCH", "DELETE"] as const).map((m) => [m, describeMCPTool(tool(m))["annotations"]]),
    );
    assert.deepEqual(hints, {
      GET: { readOnlyHint: true, openWorldHint: false },
      POST: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      PUT: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      PATCH: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      DELETE: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    });
  });

  it("marks a write tool declared Destructive as destructive whatever its method (an HTML form deletes with POST)", () => {
    const def = defineAction({
      name: "t_delete",
      method: "POST",
      route: "/t/{id}/delete",
      handler: () => undefined,
      tool: { Description: "deletes", Access: ToolWrite, Confirm: "Delete it?", Destructive: true },
    });
    assert.equal(def.Tool.Destructive, true);
    assert.deepEqual(describeMCPTool(def)["annotations"], {
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: false,
    });
    assert.throws(
      () =>
        defineAction({
          name: "t_read",
          method: "GET",
          route: "/t",
          handler: () => undefined,
          tool: { Description: "reads", Access: ToolRead, Destructive: true },
        }),
      /validate tool t_read: a read tool destroys nothing; Destructive cannot be true/,
    );
  });

  it("closes the input schema and carries the confirm sentence under latch/confirm", () => {
    assert.equal(CONFIRM_META_KEY, "latch/confirm");
    assert.deepEqual(describeMCPTool(tool("POST")), {
      name: "t_post",
      description: "writes",
      inputSchema: {
        type: "object",
        properties: { n: { type: "number", description: "a number" }, b: { type: "boolean", description: "a flag" } },
        required: ["n"],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      _meta: { "latch/confirm": "Do it?" },
    });
    assert.deepEqual(describeMCPTool(tool("GET"))["inputSchema"], { type: "object", properties: {}, additionalProperties: false });
  });
});

describe("MCPSessions", () => {
  it(`keeps at most MAX_MCP_SESSIONS (${MAX_MCP_SESSIONS}) sessions, forgetting the oldest`, () => {
    assert.equal(MAX_MCP_SESSIONS, 1000);
    const sessions = new MCPSessions();
    const ids = Array.from({ length: MAX_MCP_SESSIONS + 1 }, (_, i) =>
      sessions.open({ TokenID: `t${i}`, Subject: `p${i}@example.com`, Version: MCP_PROTOCOL_VERSION, URLElicitation: false }),
    );
    assert.equal(sessions.size, MAX_MCP_SESSIONS);
    assert.equal(sessions.get(ids[0] ?? "", "t0"), undefined, "the oldest is gone");
    assert.equal(sessions.get(ids[1] ?? "", "t1")?.Version, MCP_PROTOCOL_VERSION);
    assert.equal(new Set(ids).size, ids.length, "ids are unique");
  });

  it(`keeps at most MAX_MCP_SESSIONS_PER_TOKEN (${MAX_MCP_SESSIONS_PER_TOKEN}) per token: a flooding token forgets its own, never another's`, () => {
    assert.equal(MAX_MCP_SESSIONS_PER_TOKEN, 8);
    const sessions = new MCPSessions();
    const open = (token: string) =>
      sessions.open({ TokenID: token, Subject: `${token}@example.com`, Version: MCP_PROTOCOL_VERSION, URLElicitation: false });
    const victim = open("victim");
    const flood = Array.from({ length: MAX_MCP_SESSIONS * 2 }, () => open("attacker"));
    assert.equal(sessions.get(victim, "victim")?.Version, MCP_PROTOCOL_VERSION, "another token's session survives");
    assert.equal(sessions.size, MAX_MCP_SESSIONS_PER_TOKEN + 1);
    const kept = flood.filter((id) => sessions.get(id, "attacker") !== undefined);
    assert.deepEqual(kept, flood.slice(-MAX_MCP_SESSIONS_PER_TOKEN), "the flooding token keeps its newest");
  });

  it(`keeps at most MAX_MCP_SESSIONS_PER_PERSON (${MAX_MCP_SESSIONS_PER_PERSON}) per person: many tokens of one person forget that person's oldest`, () => {
    assert.equal(MAX_MCP_SESSIONS_PER_PERSON, 32);
    const sessions = new MCPSessions();
    const b = sessions.open({ TokenID: "b1", Subject: "b@example.com", Version: MCP_PROTOCOL_VERSION, URLElicitation: false });
    // Person A: 130 tokens × 8 sessions, the flood the issue measured.
    const flood: [string, string][] = [];
    for (let t = 0; t < 130; t++) {
      for (let i = 0; i < MAX_MCP_SESSIONS_PER_TOKEN; i++) {
        const token = `a${t}`;
        flood.push([
          sessions.open({ TokenID: token, Subject: "a@example.com", Version: MCP_PROTOCOL_VERSION, URLElicitation: false }),
          token,
        ]);
      }
    }
    assert.ok(sessions.get(b, "b1") !== undefined, "person B's session survives person A's flood");
    assert.equal(sessions.size, MAX_MCP_SESSIONS_PER_PERSON + 1);
    const kept = flood.filter(([id, token]) => sessions.get(id, token) !== undefined);
    assert.deepEqual(kept, flood.slice(-MAX_MCP_SESSIONS_PER_PERSON), "A keeps its newest");
  });

  it("at the global cap forgets the oldest session of the person holding the most, never a smaller holder's", () => {
    const sessions = new MCPSessions(6, 8, 4);
    const open = (person: string, token = person) =>
      sessions.open({ TokenID: token, Subject: `${person}@example.com`, Version: MCP_PROTOCOL_VERSION, URLElicitation: false });
    const b = open("b");
    const a = [open("a"), open("a"), open("a")];
    const c = [open("c"), open("c")];
    assert.equal(sessions.size, 6);
    const d = open("d"); // the cap: a holds the most (3), so a's oldest goes
    assert.equal(sessions.size, 6);
    assert.equal(sessions.get(a[0] ?? "", "a"), undefined, "the largest holder's oldest is forgotten");
    assert.ok([b, d].every((id) => sessions.get(id, id === b ? "b" : "d") !== undefined));
    assert.ok([...a.slice(1), ...c].every((id) => sessions.get(id, a.includes(id) ? "a" : "c") !== undefined));
    const e = open("e"); // a and c both hold 2: the tie goes to the older session, a's
    assert.equal(sessions.get(a[1] ?? "", "a"), undefined);
    assert.ok(sessions.get(c[0] ?? "", "c") !== undefined);
    assert.ok(
      [b, d, e].every((id, i) => sessions.get(id, ["b", "d", "e"][i] ?? "") !== undefined),
      "one-session people stay",
    );
  });

  it("binds a session to the token that opened it", () => {
    const sessions = new MCPSessions();
    const id = sessions.open({ TokenID: "a", Subject: "ada@example.com", Version: "2025-06-18", URLElicitation: true });
    assert.equal(sessions.get(id, "b"), undefined);
    assert.equal(sessions.close(id, "b"), false);
    assert.equal(sessions.get(id, "a")?.URLElicitation, true);
    assert.equal(sessions.close(id, "a"), true);
    assert.equal(sessions.get(id, "a"), undefined);
  });
});

describe("protocol revisions and metadata", () => {
  it("speaks 2025-11-25 and accepts 2025-06-18", () => {
    assert.deepEqual([MCP_PROTOCOL_VERSION, [...MCP_PROTOCOL_VERSIONS]], ["2025-11-25", ["2025-11-25", "2025-06-18"]]);
  });

  it("puts the well-known segment between host and path (RFC 9728 §3.1)", () => {
    assert.equal(RESOURCE_METADATA_PATH, "/.well-known/oauth-protected-resource");
    assert.equal(resourceMetadataURL("https://app.example/mcp"), "https://app.example/.well-known/oauth-protected-resource/mcp");
    assert.equal(resourceMetadataURL("https://app.example"), "https://app.example/.well-known/oauth-protected-resource");
  });
});
