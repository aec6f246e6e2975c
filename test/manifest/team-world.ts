/*
 * The team resource suites' world: `tasks` (TeamScoped, `/teams/{team}/tasks`) mounted in the teams harness (the
 * runtime, sign-in over SMTP, lib/teams with its invitations) beside what agents reach it through: agent tokens, the
 * approvals the resource voids when a membership ends, the tools endpoint (`/api/tools`) and `/mcp` behind bearer
 * tokens, and `GET`/`POST /approvals/{id}` where the signed-in person reads and decides a request.
 */
import assert from "node:assert/strict";
import type { TestContext } from "node:test";
import {
  AgentTokens,
  Approvals,
  humanActor,
  newToolsAPI,
  Schema as agentSchema,
  ToolInvoker,
  ToolRegistry,
  type CallOutcome,
} from "../../lib/agent/index.ts";
import { discardLogger, readForm, writeJSON } from "../../lib/http/index.ts";
import { ctxFrom } from "../../lib/index.ts";
import {
  accountRows,
  Kind,
  mountResource,
  Resource,
  resourceSchema,
  ScopeKind,
  StoreKind,
  type MountedResource,
} from "../../lib/manifest/index.ts";
import { newMCPServer } from "../../lib/mcp/index.ts";
import { PathValue } from "../../lib/router/index.ts";
import { From } from "../../lib/signin/index.ts";
import type { CookieJar, TestResponse } from "../_support/http-client.ts";
import { ORIGIN, startTeamsApp, type TeamsApp } from "../teams/harness.ts";
import { render } from "./conformance-apps.ts";

export const tasks: Resource = new Resource({
  Name: "tasks",
  Route: "/teams/{team}/tasks",
  Store: StoreKind.Exclusive,
  Scope: ScopeKind.TeamScoped,
  List: { Columns: [{ Field: "title" }, { Field: "done" }], Filters: [{ Field: "done" }] },
  Form: {
    Fields: [
      { Name: "title", Label: "tasks.title", Kind: Kind.Text, Required: true },
      { Name: "done", Label: "tasks.done", Kind: Kind.Boolean },
    ],
  },
});

export interface TeamWorld {
  app: TeamsApp;
  tools: ToolRegistry;
  invoker: ToolInvoker;
  tokens: AgentTokens;
  approvals: Approvals;
  /** What `mountResource` returned, by resource name. */
  resources: ReadonlyMap<string, MountedResource>;
  team: string;
  jars: Record<"ann" | "bob" | "cat" | "dan", CookieJar>;
  /** `POST /api/tools/{tool}` with `args` as `token`'s agent. */
  agentCall(token: string, tool: string, args: Record<string, unknown>): Promise<TestResponse>;
  /** `tools/call` of `tool` over `/mcp` as `token`'s agent; the JSON-RPC answer. */
  mcpCall(token: string, tool: string, args: Record<string, unknown>): Promise<Record<string, unknown>>;
}

/**
 * Ann owns a team; Bob is its member, Cat its viewer; Dan is in no team. lib/account has the resource's rows. `targets`
 * are mounted before `resource` (the targets of its Reference fields).
 */
export async function teamWorld(t: TestContext, resource: Resource = tasks, targets: readonly Resource[] = []): Promise<TeamWorld> {
  const tools = new ToolRegistry();
  const built: { invoker?: ToolInvoker; tokens?: AgentTokens; approvals?: Approvals } = {};
  const resources = new Map<string, MountedResource>();
  const app = await startTeamsApp(t, {
    render,
    schema: [...agentSchema, ...[...targets, resource].flatMap((r) => resourceSchema(r))],
    mount: (mux, auth, db, events, teams) => {
      const approvals = new Approvals(db);
      const tokens = new AgentTokens(db);
      for (const mounted of [...targets, resource])
        resources.set(
          mounted.Name,
          mountResource(mounted, {
            db,
            mux,
            tools,
            events,
            origin: ORIGIN,
            requireSession: auth.RequireSession,
            ctxFrom,
            teams,
            approvals,
          }),
        );
      const invoker = new ToolInvoker({ Registry: tools, Approvals: approvals, Events: events, Logger: discardLogger });
      const transport = { Invoker: invoker, Tokens: tokens, Origin: ORIGIN, ApprovalPath: "/approvals" };
      const api = newToolsAPI({ ...transport, Sessions: auth.Sessions });
      mux.With(api.Authenticate).Handle("POST /api/tools/{name}", api.Call);
      mux.Handle("/mcp", newMCPServer({ ...transport, Name: "teams", Version: "1.0.0" }).Handler);
      const person = (req: Parameters<typeof From>[0]): string => From(req)?.Subject ?? "";
      const fresh = mux.With(auth.RequireFreshSession(5 * 60 * 1000));
      fresh.Handle("GET /approvals/{id}", (req, res) => writeJSON(res, 200, approvals.get(PathValue(req, "id"), person(req)) ?? null));
      fresh.Handle("POST /approvals/{id}", async (req, res) => {
        const decision = (await readForm(req)).get("decision") ?? "";
        writeJSON(res, 200, approvals.decide(PathValue(req, "id"), person(req), decision));
      });
      Object.assign(built, { invoker, tokens, approvals });
      return [accountRows(db, [...targets, resource])];
    },
  });
  const { invoker, tokens, approvals } = built;
  if (invoker === undefined || tokens === undefined || approvals === undefined) throw new Error("team world: not mounted");
  const jars = {
    ann: await app.signIn("ann@example.com"),
    bob: await app.signIn("bob@example.com"),
    cat: await app.signIn("cat@example.com"),
    dan: await app.signIn("dan@example.com"),
  };
  const team = await app.createTeam(jars.ann);
  for (const [who, role] of [
    ["bob", "member"],
    ["cat", "viewer"],
  ] as const) {
    const token = await app.invite(jars.ann, team, `${who}@example.com`, role);
    assert.equal((await app.post(jars[who], "/teams/join", { token })).location, `/teams/${team}?joined=1`);
  }
  const bearer = (token: string, path: string, body: unknown): Promise<TestResponse> =>
    app.request("POST", path, {
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    });
  return {
    app,
    tools,
    invoker,
    tokens,
    approvals,
    resources,
    team,
    jars,
    agentCall: (token, tool, args) => bearer(token, `/api/tools/${tool}`, args),
    async mcpCall(token, tool, args) {
      const answer = await bearer(token, "/mcp", { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: tool, arguments: args } });
      if (answer.status !== 200) throw new Error(`mcp tools/call: ${answer.status} ${answer.body}`);
      return JSON.parse(answer.body) as Record<string, unknown>;
    },
  };
}

/** Calls tool `name` as a person (a human caller needs no approval). */
export function call(world: TeamWorld, subject: string, name: string, input: Record<string, unknown>): Promise<CallOutcome> {
  return world.invoker.call({ Actor: humanActor(), Subject: subject }, name, input);
}
