/*
 * An action's route is the application's to mount (lib/agent README, "An action's route"): `defineAction` binds a tool
 * to the human's route, `mountTools` mounts the tools endpoint only, and the runtime warns at boot about each
 * registered action whose route no pattern of its own serves. The newcomer's trial (issue 42, 6): an action on
 * `GET /harvests/summary`, never mounted, fell through to the resource's `GET /harvests/{id}` and answered 404 silently.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import * as agent from "../../lib/agent/index.ts";
import { AgentTokens, Approvals, defineAction, mountTools, ToolInvoker, ToolRead, ToolRegistry } from "../../lib/agent/index.ts";
import { mergeSchemas, type DB } from "../../lib/db/index.ts";
import { EventStore, Schema as eventsSchema } from "../../lib/events/index.ts";
import { discardLogger, type HandlerFunc } from "../../lib/http/index.ts";
import { ctxFrom, Handler, Mux } from "../../lib/index.ts";
import { Kind, mountResource, Resource, resourceSchema, ScopeKind, StoreKind } from "../../lib/manifest/index.ts";
import * as session from "../../lib/session/index.ts";
import { captureLog } from "../_support/http.ts";

const ORIGIN = "http://localhost:8080";
const page: HandlerFunc = (_req, res) => void res.end();

const harvests = new Resource({
  Name: "harvests",
  Route: "/harvests",
  Store: StoreKind.Exclusive,
  Scope: ScopeKind.UserScoped,
  List: { Columns: [{ Field: "crop" }] },
  Form: { Fields: [{ Name: "crop", Label: "harvests.crop", Kind: Kind.Text, Required: true }] },
});

const summary = defineAction({
  name: "harvest_summary",
  method: "GET",
  route: "/harvests/summary",
  tool: { Description: "Sums the person's harvests", Access: ToolRead },
  handler: page,
  run: () => ({ total: 0 }),
});

/**
 * Boots an application with the harvests resource, the tools endpoint and `register`'s actions (registered after
 * `mountTools`, as a resource's tools are), then `pages`; returns the boot warnings as [message, path].
 */
function bootWarnings(register: (tools: ToolRegistry) => void, pages: (mux: Mux) => void): [unknown, unknown][] {
  const log = captureLog();
  const [, cleanup] = Handler({
    DBPath: ":memory:",
    Schema: mergeSchemas(session.Schema, eventsSchema, agent.Schema, resourceSchema(harvests)),
    Logger: log.logger,
    Router: (db: DB | undefined) => {
      if (db === undefined) throw new Error("no database");
      const mux = new Mux();
      const sessions = new session.Sessions(db, { Origin: ORIGIN });
      const events = new EventStore(db);
      const tools = new ToolRegistry();
      const invoker = new ToolInvoker({ Registry: tools, Approvals: new Approvals(db), Events: events, Logger: discardLogger });
      mountTools(mux, { Invoker: invoker, Tokens: new AgentTokens(db), Sessions: sessions, Origin: ORIGIN, ApprovalPath: "/approvals" });
      mux.Handle("GET /approvals/{id}", page);
      const requireSession = (next: HandlerFunc): HandlerFunc => next;
      mountResource(harvests, { db, mux, tools, events, origin: ORIGIN, requireSession, ctxFrom });
      register(tools);
      pages(mux);
      return mux;
    },
  });
  cleanup();
  return log
    .lines()
    .filter((line) => line["level"] === "warn")
    .map((w) => [w["msg"], w["path"]]);
}

describe("boot: an action's route must be mounted by the application", () => {
  test("an action whose route only a wider pattern reaches is a warning naming the action, its route and the fix", () => {
    assert.deepEqual(
      bootWarnings(
        (tools) => tools.register(summary),
        () => {},
      ),
      [
        [
          'defineAction harvest_summary: no route serves GET /harvests/summary with a pattern of its own, so the action\'s handler never runs (a request there reaches another route or a 404); mount it where its pages are, behind their middleware: group.Handle("GET /harvests/summary", def.Handler)',
          "/harvests/summary",
        ],
      ],
    );
  });

  test("mounted by the application, behind middleware, with another wildcard name or no method, it is not", () => {
    assert.deepEqual(
      bootWarnings(
        (tools) => tools.register(summary),
        (mux) => mux.With((next) => next).Handle("GET /harvests/summary", summary.Handler),
      ),
      [],
    );
    const byID = defineAction({ ...spec(summary), name: "harvest_on", route: "/harvest-days/{day}" });
    assert.deepEqual(
      bootWarnings(
        (tools) => tools.register(byID),
        (mux) => mux.Handle("/harvest-days/{date}", page),
      ),
      [],
    );
  });

  test("a route for another method does not count", () => {
    const warned = bootWarnings(
      (tools) => tools.register(summary),
      (mux) => mux.Handle("POST /harvests/summary", page),
    );
    assert.deepEqual(
      warned.map(([, path]) => path),
      ["/harvests/summary"],
    );
  });

  test("a resource's own tools, whose routes mountResource mounts, warn nothing", () => {
    assert.deepEqual(
      bootWarnings(
        () => {},
        () => {},
      ),
      [],
    );
  });
});

/** The `ActionSpec` a `ToolDef` was made from, to vary one field. */
function spec(def: agent.ToolDef): agent.ActionSpec {
  return { name: def.Name, method: def.Method, route: def.Route, tool: def.Tool, handler: def.Handler, run: def.Run };
}
