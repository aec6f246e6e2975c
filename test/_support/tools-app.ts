/*
 * A tools application for the agent suites: the sign-in test app
 * (signin-app.ts: runtime Handler, real SMTP, fake clock, captured logs)
 * plus the events and agent schemas, agent tokens, approvals, a tool
 * registry (counter_add: write; counter_get, explode: read), the tools
 * endpoint behind `Authenticate`, `/api/whoami`, and `POST /approvals/{id}`
 * where the signed-in person decides. Agents call with a bearer token.
 */
import type { TestContext } from "node:test";
import * as agent from "../../lib/agent/index.ts";
import {
  AgentTokens,
  Approvals,
  mountTools,
  subjectFrom,
  ToolCallLimiter,
  ToolInvoker,
  ToolRead,
  ToolRegistry,
  ToolWrite,
  defineAction,
} from "../../lib/agent/index.ts";
import * as events from "../../lib/events/index.ts";
import { EventStore } from "../../lib/events/index.ts";
import { writeJSON, readForm } from "../../lib/http/index.ts";
import { withCtx } from "../../lib/index.ts";
import { PathValue } from "../../lib/router/index.ts";
import { From } from "../../lib/signin/index.ts";
import { FakeClock } from "./clock.ts";
import { CookieJar, startSigninApp, type SigninApp, type TestResponse } from "./signin-app.ts";

/** A running tools application, signed in as ada@example.com (`human`). */
export interface ToolsApp extends SigninApp {
  tokens: AgentTokens;
  events: EventStore;
  /** Arguments of every run of the write tool, in order. */
  runs: number[];
  human: CookieJar;
  mint(access: "read" | "write", name?: string): string;
  call(token: string | undefined, tool: string, args: unknown, jar?: CookieJar): Promise<TestResponse & { json: Record<string, unknown> }>;
  approve(url: string, decision?: string): Promise<TestResponse>;
}

/** Starts the tools application; it closes with the test. */
export async function startToolsApp(t: TestContext): Promise<ToolsApp> {
  const runs: number[] = [];
  const clock = new FakeClock();
  const built: { tokens?: AgentTokens; events?: EventStore } = {};
  const app = await startSigninApp(t, {
    clock,
    schema: [...events.Schema, ...agent.Schema],
    extend: (mux, auth, db, logger) => {
      const store = new EventStore(db, { Clock: clock });
      const tokens = new AgentTokens(db, { Clock: clock });
      const approvals = new Approvals(db, { Clock: clock });
      const registry = new ToolRegistry();
      registry.register(
        defineAction({
          name: "counter_add",
          method: "POST",
          route: "/counter",
          tool: {
            Description: "Adds to the counter",
            Access: ToolWrite,
            Confirm: "Add to your counter?",
            Args: [{ Name: "by", Type: "number", Required: true, Description: "amount" }],
          },
          handler: (_req, res) => void res.end(),
          run: ({ Args, Subject }) => {
            runs.push(Number(Args.get("by")));
            return { subject: Subject, total: runs.reduce((a, b) => a + b, 0) };
          },
        }),
      );
      registry.register(
        defineAction({
          name: "counter_get",
          method: "GET",
          route: "/counter",
          tool: { Description: "Reads the counter", Access: ToolRead },
          handler: (_req, res) => void res.end(),
          run: ({ Subject }) => ({ subject: Subject, runs: runs.length }),
        }),
      );
      registry.register(
        defineAction({
          name: "explode",
          method: "GET",
          route: "/explode",
          tool: { Description: "Fails", Access: ToolRead, Args: [{ Name: "secret", Type: "string", Description: "kept out of logs" }] },
          handler: (_req, res) => void res.end(),
          run: () => {
            throw new Error("explode: on purpose");
          },
        }),
      );
      const invoker = new ToolInvoker({ Registry: registry, Approvals: approvals, Events: store, Logger: logger });
      const api = mountTools(mux, {
        Invoker: invoker,
        Tokens: tokens,
        Sessions: auth.Sessions,
        Origin: "http://app.test",
        ApprovalPath: "/approvals",
        RateLimit: new ToolCallLimiter(undefined, { Clock: clock }),
      });
      const callers = mux.With(api.Authenticate);
      callers.Handle(
        "GET /api/whoami",
        withCtx((ctx, req, res) => writeJSON(res, 200, { actor: ctx.Actor.String(), subject: subjectFrom(req) ?? null })),
      );
      mux.With(auth.RequireFreshSession(5 * 60 * 1000)).Handle("POST /approvals/{id}", async (req, res) => {
        const decision = (await readForm(req)).get("decision") ?? "";
        writeJSON(res, 200, approvals.decide(PathValue(req, "id") ?? "", From(req)?.Subject ?? "", decision));
      });
      built.tokens = tokens;
      built.events = store;
    },
  });
  const { tokens, events: store } = built;
  if (tokens === undefined || store === undefined) throw new Error("tools app: not built");
  const human = await app.signIn("ada@example.com");
  const tools: ToolsApp = Object.assign(app, {
    tokens,
    events: store,
    runs,
    human,
    mint: (access: "read" | "write", name = `bot-${access}`) =>
      tokens.mint({ Subject: "ada@example.com", Name: name, Access: access }).Token,
    async call(token: string | undefined, tool: string, args: unknown, jar?: CookieJar) {
      const res = await app.request("POST", `/api/tools/${tool}`, {
        ...(jar !== undefined && { jar }),
        headers: { "Content-Type": "application/json", ...(token !== undefined && { Authorization: `Bearer ${token}` }) },
        body: JSON.stringify(args),
      });
      return { ...res, json: JSON.parse(res.body) as Record<string, unknown> };
    },
    approve: (url: string, decision = "approve") => app.request("POST", new URL(url).pathname, { jar: human, form: { decision } }),
  });
  return tools;
}
