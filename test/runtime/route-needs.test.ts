/*
 * The boot warning for a linked page without a route: the tools endpoint
 * and the MCP endpoint hand out `ApprovalPath/<id>`, so an application
 * whose Mux does not route it would send every person asked to approve a
 * write to a 404. The runtime says so at boot, with the path and the fix.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import * as agent from "../../lib/agent/index.ts";
import { AgentTokens, Approvals, newToolsAPI, ToolInvoker, ToolRegistry } from "../../lib/agent/index.ts";
import { mergeSchemas, type DB } from "../../lib/db/index.ts";
import { EventStore, Schema as eventsSchema } from "../../lib/events/index.ts";
import { discardLogger } from "../../lib/http/index.ts";
import { Handler, Mux } from "../../lib/index.ts";
import { newMCPServer } from "../../lib/mcp/index.ts";
import * as oauth from "../../lib/oauth/index.ts";
import * as session from "../../lib/session/index.ts";
import { captureLog, type LogLine } from "../_support/http.ts";

const ORIGIN = "http://localhost:8080";

/** Mounts the tools endpoint (and, with `mcp`, the MCP endpoint) linking to `approvalPath`, then `pages`. */
function app(db: DB | undefined, approvalPath: string, pages: (mux: Mux) => void, mcp = false): Mux {
  if (db === undefined) throw new Error("no database");
  const mux = new Mux();
  const events = new EventStore(db);
  const tokens = new AgentTokens(db);
  const invoker = new ToolInvoker({ Registry: new ToolRegistry(), Approvals: new Approvals(db), Events: events, Logger: discardLogger });
  const sessions = new session.Sessions(db, { Origin: ORIGIN });
  const api = newToolsAPI({ Invoker: invoker, Tokens: tokens, Sessions: sessions, Origin: ORIGIN, ApprovalPath: approvalPath });
  mux.With(api.Authenticate).Handle("POST /api/tools/{name}", api.Call);
  if (mcp) {
    const server = newMCPServer({ Invoker: invoker, Tokens: tokens, Origin: ORIGIN, ApprovalPath: approvalPath, Name: "t", Version: "1" });
    mux.Handle("/mcp", server.Handler);
  }
  pages(mux);
  return mux;
}

/** Boots `Handler` with `router` and returns the warnings logged. */
function bootWarnings(router: (db: DB | undefined) => Mux | Mux["ServeHTTP"]): LogLine[] {
  const log = captureLog();
  const [, cleanup] = Handler({
    DBPath: ":memory:",
    Schema: mergeSchemas(session.Schema, eventsSchema, agent.Schema, oauth.Schema),
    Router: router,
    Logger: log.logger,
  });
  cleanup();
  return log.lines().filter((line) => line["level"] === "warn");
}

const page = (_req: unknown, res: { end(): void }): void => res.end();
const notFound = (mux: Mux): void => mux.Handle("/", page);

describe("boot: a page a component links to must have a route", () => {
  test("an approval path the Mux does not route is a warning naming the path and the fix", () => {
    const warnings = bootWarnings((db) => app(db, "/account/approvals", notFound));
    assert.deepEqual(
      warnings.map((w) => [w["msg"], w["path"]]),
      [
        [
          'newToolsAPI ApprovalPath: no route serves GET /account/approvals/{id}, so the links it hands out answer 404; register "GET /account/approvals/{id}" on the Mux, or change newToolsAPI ApprovalPath',
          "/account/approvals/{id}",
        ],
      ],
    );
  });

  test("the MCP endpoint's approval path is checked too, and one path is named once", () => {
    assert.deepEqual(
      bootWarnings((db) => app(db, "/approve", () => {}, true)).map((w) => w["path"]),
      ["/approve/{id}"],
    );
    const mcpOnly = bootWarnings((db) => {
      const mux = app(db, "/approve", (m) => m.Handle("GET /approve/{id}", page), true);
      const other = newMCPServer({
        Invoker: new ToolInvoker({
          Registry: new ToolRegistry(),
          Approvals: new Approvals(db as DB),
          Events: new EventStore(db as DB),
          Logger: discardLogger,
        }),
        Tokens: new AgentTokens(db as DB),
        Origin: ORIGIN,
        ApprovalPath: "/elsewhere",
        Name: "t",
        Version: "1",
      });
      mux.Handle("/mcp2", other.Handler);
      return mux;
    });
    assert.deepEqual(
      mcpOnly.map((w) => [String(w["msg"]).split(":")[0], w["path"]]),
      [["newMCPServer ApprovalPath", "/elsewhere/{id}"]],
    );
  });

  test("a routed approval path is not, whether the page takes any id, sits behind middleware or the app passes ServeHTTP", () => {
    assert.deepEqual(
      bootWarnings((db) => app(db, "/account/approvals", (m) => m.Handle("GET /account/approvals/{id}", page))),
      [],
    );
    assert.deepEqual(
      bootWarnings((db) => app(db, "/account/approvals", (m) => m.With((next) => next).Handle("/account/approvals/{id...}", page))),
      [],
    );
    assert.deepEqual(
      bootWarnings((db) => app(db, "/a", (m) => m.Handle("GET /a/{id}", page)).ServeHTTP),
      [],
    );
    assert.equal(bootWarnings((db) => app(db, "/a", notFound).ServeHTTP).length, 1);
  });

  test("a route for another method, or only the list without an id, does not count", () => {
    assert.equal(bootWarnings((db) => app(db, "/a", (m) => m.Handle("POST /a/{id}", page))).length, 1);
    assert.equal(bootWarnings((db) => app(db, "/a", (m) => m.Handle("GET /a", page))).length, 1);
  });

  test("the authorization server's sign-in and step-up paths are checked: a person without a session is sent there", () => {
    // The consent page itself is the server's (ConsentPage); the pages it sends a person to are the application's.
    const withOAuth = (signinPath: string, stalePath: string | undefined, pages: (mux: Mux) => void) =>
      bootWarnings((db) => {
        if (db === undefined) throw new Error("no database");
        const mux = new Mux();
        const server = oauth.newOAuthServer({
          DB: db,
          Tokens: new AgentTokens(db),
          Sessions: new session.Sessions(db, { Origin: ORIGIN }),
          Origin: ORIGIN,
          SigninPath: signinPath,
          ...(stalePath !== undefined && { StalePath: stalePath }),
          ConsentPage: (_req, res) => void res.end(),
        });
        mux.Handle("/oauth/", server.Handler);
        pages(mux);
        return mux;
      }).map((w) => [String(w["msg"]).split(":")[0], w["path"]]);
    assert.deepEqual(withOAuth("/signin", "/stepup", notFound), [
      ["newOAuthServer SigninPath", "/signin"],
      ["newOAuthServer StalePath", "/stepup"],
    ]);
    assert.deepEqual(withOAuth("/signin", undefined, notFound), [["newOAuthServer SigninPath", "/signin"]]);
    assert.deepEqual(
      withOAuth("/signin", "/stepup", (m) => m.Handle("GET /signin", page)),
      [["newOAuthServer StalePath", "/stepup"]],
    );
    assert.deepEqual(
      withOAuth("/signin", "/stepup", (m) => {
        m.Handle("GET /signin", page);
        m.Handle("GET /stepup", page);
      }),
      [],
    );
  });
});
