/*
 * One application serving its tools over both agent transports, for the
 * suites that check the two agree: the sign-in test app (signin-app.ts:
 * runtime Handler, crossOriginProtection in Wrap, fake clock) on origin
 * http://app.test, plus a tool registry (`whoami`: read; `counter_add`:
 * write), `POST /api/tools/{name}` behind `Authenticate` and `/mcp`, both
 * over one `ToolInvoker`. `POST /form` answers 204 behind its own
 * `crossOriginProtection` for the same origin (for comparing the two
 * checks, start with `wrap: false`: then nothing else sits in front of /mcp).
 *
 * `whoami` answers who the tool sees calling: the actor its invocation
 * names and `Ctx.Actor` of the request it runs in (the request reaches the
 * tool through an AsyncLocalStorage the test routes set). With `resource`,
 * a manifest resource is mounted too (its routes and its five generated
 * tools, over the same registry), on the app's fake clock.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { IncomingMessage } from "node:http";
import type { TestContext } from "node:test";
import * as agent from "../../lib/agent/index.ts";
import {
  AgentTokens,
  Approvals,
  ToolCallLimiter,
  ToolInvoker,
  ToolRead,
  ToolRegistry,
  ToolWrite,
  defineAction,
  newToolsAPI,
} from "../../lib/agent/index.ts";
import * as events from "../../lib/events/index.ts";
import { EventStore, auditStream, type Event } from "../../lib/events/index.ts";
import { crossOriginProtection, type Middleware } from "../../lib/http/index.ts";
import { ctxFrom } from "../../lib/index.ts";
import { mountResource, type Resource } from "../../lib/manifest/index.ts";
import { newMCPServer } from "../../lib/mcp/index.ts";
import { FakeClock } from "./clock.ts";
import { startSigninApp, type RequestOptions, type SigninApp, type TestResponse } from "./signin-app.ts";

type MountedResource = ReturnType<typeof mountResource>;

/** The application's public origin; requests carry it as `Origin` unless told otherwise. */
export const ORIGIN = "http://app.test";

/** The person every token acts for. */
export const SUBJECT = "ada@example.com";

/** A running application with both transports. */
export interface TransportsApp extends SigninApp {
  /** Mints a token for `SUBJECT`. */
  mint(access: "read" | "write", name: string): string;
  /** `POST /api/tools/{tool}` with a JSON body (a raw one when `body` is a string or bytes). */
  tools(token: string, tool: string, body: unknown, options?: RequestOptions): Promise<TestResponse>;
  /** `POST /mcp` with one JSON-RPC message (raw when a string or bytes). */
  mcp(token: string, message: unknown, options?: RequestOptions): Promise<TestResponse>;
  /** `tools/call` of `tool` over /mcp; `session` is an `Mcp-Session-Id`. Returns the JSON-RPC answer. */
  mcpCall(token: string, tool: string, args: unknown, session?: string): Promise<Record<string, unknown>>;
  /** `initialize` over /mcp declaring `capabilities`; returns the session id and the result. */
  mcpInitialize(token: string, capabilities: Record<string, unknown>): Promise<{ session: string; result: Record<string, unknown> }>;
  /** The audit stream of `SUBJECT`. */
  audit(): Event[];
  /** Approves approval request `id` as `SUBJECT`, as the person does on the approval page. */
  approve(id: string): void;
  /** The resource `resource` mounted (its `Store` edits records as the person would elsewhere). */
  mounted: MountedResource | undefined;
}

function jsonBody(body: unknown): string | Buffer {
  return typeof body === "string" || Buffer.isBuffer(body) ? body : JSON.stringify(body);
}

/** Options of `startTransportsApp`. */
export interface TransportsAppOptions {
  /** Mount `crossOriginProtection` in the runtime's `Wrap`, in front of every route. @default true */
  wrap?: boolean;
  /** A resource to mount (routes and tools), for `SUBJECT`'s records. @default none */
  resource?: Resource;
  /** "smtp" lets people sign in (`signIn`) through a real SMTP server. @default "log" */
  mail?: "log" | "smtp";
  /** Resources mounted before `resource`: the targets of its Reference fields. @default none */
  targets?: readonly Resource[];
}

/** Starts the application; it closes with the test. */
export async function startTransportsApp(t: TestContext, options: TransportsAppOptions = {}): Promise<TransportsApp> {
  const requests = new AsyncLocalStorage<IncomingMessage>();
  // Lets a tool's Run find the request it runs in (only this test app needs it).
  const remember: Middleware = (next) => (req, res) => requests.run(req, () => next(req, res));
  const built: { tokens?: AgentTokens; events?: EventStore; approvals?: Approvals; mounted?: MountedResource } = {};
  const clock = new FakeClock();
  const app = await startSigninApp(t, {
    clock,
    origin: ORIGIN,
    crossOriginProtection: options.wrap !== false,
    mail: options.mail ?? "log",
    schema: [...events.Schema, ...agent.Schema],
    extend: (mux, auth, db, logger) => {
      const approvals = new Approvals(db, { Clock: clock });
      const store = new EventStore(db, { Clock: clock });
      const tokens = new AgentTokens(db, { Clock: clock });
      const registry = new ToolRegistry();
      registry.register(
        defineAction({
          name: "whoami",
          method: "GET",
          route: "/whoami",
          tool: { Description: "Who the tool sees calling", Access: ToolRead },
          handler: (_req, res) => void res.end(),
          run: ({ Actor }) => {
            const req = requests.getStore();
            return { invocation: Actor.String(), ctx: req === undefined ? null : (ctxFrom(req)?.Actor.String() ?? null) };
          },
        }),
      );
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
          run: ({ Args }) => ({ added: Args.get("by") }),
        }),
      );
      const invoker = new ToolInvoker({
        Registry: registry,
        Approvals: approvals,
        Events: store,
        Logger: logger,
      });
      // One limiter on the fake clock for both transports, as an application shares one.
      const limiter = new ToolCallLimiter(undefined, { Clock: clock });
      const api = newToolsAPI({
        Invoker: invoker,
        Tokens: tokens,
        Sessions: auth.Sessions,
        Origin: ORIGIN,
        ApprovalPath: "/approvals",
        RateLimit: limiter,
      });
      const mcp = newMCPServer({
        Invoker: invoker,
        Tokens: tokens,
        RateLimit: limiter,
        Origin: ORIGIN,
        ApprovalPath: "/approvals",
        Name: "transports",
        Version: "1.0.0",
      });
      mux.With(remember, api.Authenticate).Handle("POST /api/tools/{name}", api.Call);
      mux.With(remember).Handle("/mcp", mcp.Handler);
      mux.With(crossOriginProtection({ Origin: ORIGIN })).Handle("POST /form", (_req, res) => {
        res.statusCode = 204;
        res.end();
      });
      const mount = (resource: Resource): MountedResource =>
        mountResource(resource, {
          db,
          mux,
          tools: registry,
          events: store,
          origin: ORIGIN,
          requireSession: auth.RequireSession,
          ctxFrom,
          clock,
        });
      for (const target of options.targets ?? []) mount(target);
      if (options.resource !== undefined) built.mounted = mount(options.resource);
      built.tokens = tokens;
      built.events = store;
      built.approvals = approvals;
    },
  });
  const { tokens, events: store, approvals, mounted } = built;
  if (tokens === undefined || store === undefined || approvals === undefined) throw new Error("transports app: not built");
  const post = (path: string, token: string, body: unknown, options: RequestOptions = {}): Promise<TestResponse> =>
    app.request("POST", path, {
      ...options,
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}`, ...options.headers },
      body: jsonBody(body),
    });
  const transports: TransportsApp = Object.assign(app, {
    mint: (access: "read" | "write", name: string) => tokens.mint({ Subject: SUBJECT, Name: name, Access: access }).Token,
    tools: (token: string, tool: string, body: unknown, options?: RequestOptions) => post(`/api/tools/${tool}`, token, body, options),
    mcp: (token: string, message: unknown, options?: RequestOptions) => post("/mcp", token, message, options),
    async mcpCall(token: string, tool: string, args: unknown, session?: string) {
      const message = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: tool, arguments: args } };
      const res = await post("/mcp", token, message, session === undefined ? {} : { headers: { "Mcp-Session-Id": session } });
      if (res.status !== 200) throw new Error(`mcp tools/call: ${res.status} ${res.body}`);
      return JSON.parse(res.body) as Record<string, unknown>;
    },
    async mcpInitialize(token: string, capabilities: Record<string, unknown>) {
      const params = { protocolVersion: "2025-11-25", capabilities, clientInfo: { name: "test", version: "0" } };
      const res = await post("/mcp", token, { jsonrpc: "2.0", id: 0, method: "initialize", params });
      if (res.status !== 200) throw new Error(`mcp initialize: ${res.status} ${res.body}`);
      return {
        session: String(res.headers["mcp-session-id"]),
        result: (JSON.parse(res.body) as { result: Record<string, unknown> }).result,
      };
    },
    audit: () => store.read(auditStream(SUBJECT)),
    approve(id: string) {
      const decided = approvals.decide(id, SUBJECT, "approve");
      if (!decided.ok) throw new Error(`approve ${id}: ${decided.reason}`);
    },
    mounted,
  });
  return transports;
}
