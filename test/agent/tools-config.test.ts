/*
 * The tools endpoint and the MCP server refuse, at startup, an `Origin` or
 * `ApprovalPath` that would make `approval_url` point anywhere but the
 * application (STYLE §5: config mistakes fail at startup naming the field).
 */
import { describe, it, type TestContext } from "node:test";
import assert from "node:assert/strict";
import * as agent from "../../lib/agent/index.ts";
import { AgentTokens, Approvals, ToolInvoker, ToolRegistry, mountTools, newToolsAPI } from "../../lib/agent/index.ts";
import { Mux } from "../../lib/router/index.ts";
import { startHandler, fetchHTTP } from "../_support/http.ts";
import type { ToolsAPIConfig } from "../../lib/agent/tools-http.ts";
import { applySchema, mergeSchemas, OpenDB } from "../../lib/db/index.ts";
import * as events from "../../lib/events/index.ts";
import { EventStore } from "../../lib/events/index.ts";
import { discardLogger } from "../../lib/http/index.ts";
import { newMCPServer } from "../../lib/mcp/index.ts";
import * as session from "../../lib/session/index.ts";
import { Sessions } from "../../lib/session/index.ts";

function parts(t: TestContext): Omit<ToolsAPIConfig, "Origin" | "ApprovalPath"> {
  const db = OpenDB(":memory:");
  t.after(() => db.close());
  applySchema(db, mergeSchemas(session.Schema, events.Schema, agent.Schema));
  const Invoker = new ToolInvoker({
    Registry: new ToolRegistry(),
    Approvals: new Approvals(db),
    Events: new EventStore(db),
    Logger: discardLogger,
  });
  return { Invoker, Tokens: new AgentTokens(db), Sessions: new Sessions(db, { Origin: "https://app.test" }) };
}

const BAD: [string, Partial<ToolsAPIConfig>][] = [
  ["Origin", { Origin: "app.test" }],
  ["Origin", { Origin: "javascript:alert(1)" }],
  ["ApprovalPath", { ApprovalPath: "//evil.test/approvals" }],
  ["ApprovalPath", { ApprovalPath: "/\\evil.test" }],
  ["ApprovalPath", { ApprovalPath: "https://evil.test/approvals" }],
  ["ApprovalPath", { ApprovalPath: "approvals" }],
];

describe("newToolsAPI and newMCPServer config", () => {
  for (const [field, bad] of BAD) {
    it(`refuse ${field} ${JSON.stringify(Object.values(bad)[0])} with ERR_HTTP_INVALID_OPTIONS naming ${field}`, (t) => {
      const config = { ...parts(t), Origin: "https://app.test", ApprovalPath: "/approvals", ...bad };
      const named = (err: unknown) =>
        (err as { code?: string }).code === "ERR_HTTP_INVALID_OPTIONS" && String((err as Error).message).includes(field);
      assert.throws(() => newToolsAPI(config), named);
      assert.throws(() => newMCPServer({ ...config, Name: "t", Version: "1" }), named);
    });
  }

  it("accept a local ApprovalPath on an http(s) origin", (t) => {
    const config = { ...parts(t), Origin: "https://app.test", ApprovalPath: "/account/approvals" };
    newToolsAPI(config);
    newMCPServer({ ...config, Name: "t", Version: "1" });
    assert.equal(agent.approvalURL(config, "abc"), "https://app.test/account/approvals/abc");
  });

  it("mountTools mounts GET /api/tools and POST /api/tools/{name} behind Authenticate in one call", async (t) => {
    const mux = new Mux();
    const api = mountTools(mux, { ...parts(t), Origin: "https://app.test", ApprovalPath: "/approvals" });
    assert.equal(typeof api.Authenticate, "function");
    const { port } = await startHandler(t, { Router: () => mux });
    // Mounted: the gate answers (401 with the bearer challenge), not the mux's 404.
    for (const [method, path] of [
      ["GET", "/api/tools"],
      ["POST", "/api/tools/any_tool"],
    ] as const) {
      const res = await fetchHTTP(port, path, { method });
      assert.equal(res.status, 401, `${method} ${path}`);
      assert.equal(res.headers["www-authenticate"], 'Bearer realm="api"');
    }
    assert.equal((await fetchHTTP(port, "/api/other")).status, 404);
  });
});
