/*
 * The account suites' application with what a write in flight needs
 * (issue 36): the demo's `expenses` resource mounted behind the session
 * gate, agent tokens wired to the sessions (as the demo), approvals, the
 * tools endpoint `POST /api/tools/{name}` and the MCP endpoint `/mcp`
 * (both on one invoker, as the demo), and one write tool of the
 * test's own, `expenses_gated`, whose run waits for the test before it
 * writes through the resource's store. Requests can be held open: the
 * head and part of the body sent, the rest when the test says.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { request as httpRequest, type IncomingMessage } from "node:http";
import type { TestContext } from "node:test";
import { AgentTokens, Approvals, ToolInvoker, ToolRegistry, ToolWrite, defineAction, newToolsAPI } from "../../lib/agent/index.ts";
import type { Middleware } from "../../lib/http/index.ts";
import { ctxFrom } from "../../lib/index.ts";
import { mountResource } from "../../lib/manifest/index.ts";
import { newMCPServer } from "../../lib/mcp/index.ts";
import { expenses } from "../../examples/demo/resources.ts";
import type { CookieJar } from "../_support/http-client.ts";
import { startAccountApp, type AccountApp } from "./harness.ts";

/** Where the tools endpoint's OAuth access tokens are bound (RFC 8707), on the tools API's origin. */
export const TOOLS_RESOURCE = "http://localhost/api/tools";

/** The application of the race suites. */
export interface RaceApp extends AccountApp {
  tokens: AgentTokens;
  approvals: Approvals;
  /** Resolves with the next request to pass the resource's session gate (it is authenticated from then on). */
  authenticated(): Promise<IncomingMessage>;
  /** Resolves when `expenses_gated` runs, and lets it write when `release` is called. */
  gate: { entered: Promise<void>; release(): void };
  /** Starts `method path` with `jar`'s cookies and `headers`, sends the head and `body` but its last byte; `finish` sends it. */
  hold(method: string, path: string, body: string, jar?: CookieJar, headers?: Record<string, string>): HeldRequest;
  /** Counts the expenses of `owner`. */
  expensesOf(owner: string): number;
}

/** A request whose body is not finished yet. */
export interface HeldRequest {
  /** Sends the last byte; resolves with the answer. */
  finish(): Promise<{ status: number; location: string | undefined; headers: IncomingMessage["headers"]; body: string }>;
}

function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** Starts the application; it closes with the test. */
export async function startRaceApp(t: TestContext): Promise<RaceApp> {
  const built: { tokens?: AgentTokens; approvals?: Approvals } = {};
  let arrived = deferred<IncomingMessage>();
  const entered = deferred<void>();
  const released = deferred<void>();
  // The expenses' receipts (a File field) need a directory of their own.
  const files = mkdtempSync(join(tmpdir(), "latch-race-"));
  t.after(() => rmSync(files, { recursive: true, force: true }));
  const app = await startAccountApp(t, {
    render: (_req, res, view) => {
      res.setHeader("Content-Type", "text/plain");
      res.end(view);
    },
    extend: (mux, auth, db, logger, events, clock) => {
      const tokens = new AgentTokens(db, { Clock: clock, Sessions: auth.Sessions, Events: events });
      const approvals = new Approvals(db, { Clock: clock });
      const registry = new ToolRegistry();
      // The resource's gate, telling the test once a request has passed it.
      const requireSession: Middleware = (next) =>
        auth.RequireSession((req, res) => {
          arrived.resolve(req);
          return next(req, res);
        });
      const mounted = mountResource(expenses, {
        db,
        mux,
        tools: registry,
        events,
        origin: "http://localhost",
        requireSession,
        ctxFrom,
        clock,
        files,
      });
      registry.register(
        defineAction({
          name: "expenses_gated",
          method: "POST",
          route: "/expenses-gated",
          tool: { Description: "Adds an expense once the test lets it", Access: ToolWrite, Confirm: "Add an expense?" },
          handler: (_req, res) => void res.end(),
          run: async ({ Subject, Actor, StillHeld }) => {
            entered.resolve();
            await released.promise;
            return mounted.Store.create(
              { owner: Subject, actor: Actor, stillHeld: StillHeld },
              {
                label: "late",
                amount: "1.00", // the Store takes an amount as its tools give it (README "Values by kind")
                spent_on: null,
                // An unchosen Choice is "", as a form stores it (its column is NOT NULL): null failed every run, so the
                // tool never wrote and the races held without the re-check (mcp-race.test.ts's control catches that).
                category: "",
              },
            );
          },
        }),
      );
      const invoker = new ToolInvoker({ Registry: registry, Approvals: approvals, Events: events, Logger: logger });
      const api = newToolsAPI({
        Invoker: invoker,
        Tokens: tokens,
        Sessions: auth.Sessions,
        Origin: "http://localhost",
        ApprovalPath: "/approvals",
      });
      mux.With(api.Authenticate).Handle("POST /api/tools/{name}", api.Call);
      const mcp = newMCPServer({
        Invoker: invoker,
        Tokens: tokens,
        Origin: "http://localhost",
        ApprovalPath: "/approvals",
        Name: "race",
        Version: "1.0.0",
      });
      mux.Handle("/mcp", mcp.Handler);
      built.tokens = tokens;
      built.approvals = approvals;
    },
  });
  const { tokens, approvals } = built;
  if (tokens === undefined || approvals === undefined) throw new Error("race app: not built");
  const url = new URL(app.base);
  return Object.assign(app, {
    tokens,
    approvals,
    authenticated: () => {
      arrived = deferred<IncomingMessage>();
      return arrived.promise;
    },
    gate: { entered: entered.promise, release: () => released.resolve() },
    expensesOf: (owner: string) => (app.db.prepare("SELECT count(*) AS n FROM expenses WHERE owner = ?").get(owner) as { n: number }).n,
    hold(method: string, path: string, body: string, jar?: CookieJar, headers: Record<string, string> = {}): HeldRequest {
      const cookie = jar?.header();
      const req = httpRequest({
        host: url.hostname,
        port: url.port,
        method,
        path,
        headers: {
          "Content-Type": "application/x-www-form-urlencoded",
          "Content-Length": String(Buffer.byteLength(body)),
          // A browser's form post: same-origin by Fetch Metadata, and it wants a page back.
          "Sec-Fetch-Site": "same-origin",
          Accept: "text/html",
          ...(cookie !== undefined && { Cookie: cookie }),
          ...headers,
        },
      });
      const answered = new Promise<Awaited<ReturnType<HeldRequest["finish"]>>>((resolve, reject) => {
        req.on("error", reject);
        req.on("response", (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => (text += chunk));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, location: res.headers.location, headers: res.headers, body: text }));
        });
      });
      req.write(body.slice(0, -1));
      return {
        finish: () => {
          req.end(body.slice(-1));
          return answered;
        },
      };
    },
  });
}
