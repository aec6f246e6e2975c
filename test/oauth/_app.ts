/*
 * An OAuth application for the oauth suites: the sign-in test app
 * (signin-app.ts: runtime Handler, real SMTP, fake clock) plus the agent and
 * oauth schemas, agent tokens with their event store, the tools endpoint
 * (counter_add: write; counter_get: read) and the authorization server,
 * whose consent page answers the `Consent` as JSON. Clients come from a
 * three-client directory (the real client directory is lib/oauth's).
 */
import { createHash } from "node:crypto";
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
import { EventStore } from "../../lib/events/index.ts";
import { writeJSON } from "../../lib/http/index.ts";
import * as oauth from "../../lib/oauth/index.ts";
import { OAuthError, newOAuthServer, type OAuthClient } from "../../lib/oauth/index.ts";
import { matchesRedirectURI } from "../../lib/oauth/redirect-uri.ts";
import { FakeClock } from "../_support/clock.ts";
import { CookieJar, startSigninApp, type SigninApp, type TestResponse } from "../_support/signin-app.ts";

export const ORIGIN = "http://app.test";
export const MCP_RESOURCE: string = `${ORIGIN}/mcp`;
export const TOOLS_RESOURCE: string = `${ORIGIN}/api/tools`;

/** The client most tests use: a metadata-document client with a loopback redirect URI. */
export const CLIENT: OAuthClient = Object.freeze({
  ClientID: "https://client.example/oauth/metadata.json",
  Name: "Claude Desktop",
  Host: "client.example",
  RedirectURIs: ["http://127.0.0.1:33418/callback"],
  GrantTypes: ["authorization_code", "refresh_token"],
});

/** Another client, for codes presented by the wrong one. */
export const OTHER: OAuthClient = Object.freeze({
  ClientID: "https://other.example/client.json",
  Name: "Other",
  Host: "other.example",
  RedirectURIs: ["https://other.example/cb"],
  GrantTypes: ["authorization_code", "refresh_token"],
});

/** A registered client without the refresh_token grant type (RFC 7591 §2's default). */
export const ACCESS_ONLY: OAuthClient = Object.freeze({
  ClientID: "access-only-client",
  Name: "Access Only",
  Host: "localhost",
  RedirectURIs: ["http://127.0.0.1/cb"],
  GrantTypes: ["authorization_code"],
});

export const VERIFIER: string = "v".repeat(43) + "-verifier_0123456789";
export const CHALLENGE: string = createHash("sha256").update(VERIFIER).digest("base64url");

/** The fields of a token endpoint answer (RFC 6749 §5.1, §5.2). */
export type OAuthJSON = Partial<
  Record<"access_token" | "refresh_token" | "token_type" | "expires_in" | "scope" | "error" | "error_description", unknown>
>;

export interface OAuthApp extends SigninApp {
  tokens: AgentTokens;
  /** The authorization server (its `Sweep`). */
  server: ReturnType<typeof newOAuthServer>;
  events: EventStore;
  runs: number[];
  /** A session of ada@example.com. */
  human: CookieJar;
  /** GET /oauth/authorize with the default request, `params` overriding (undefined removes). */
  authorize(params?: Record<string, string | undefined>, jar?: CookieJar): Promise<TestResponse>;
  /** Authorizes, allows on the consent page; returns the redirect's query. */
  allow(params?: Record<string, string | undefined>): Promise<URLSearchParams>;
  /** POST /oauth/token (or another path) with a form; the JSON answer. */
  post(path: string, form: Record<string, string>): Promise<TestResponse & { json: OAuthJSON }>;
  /** Exchanges `code` with the default verifier. */
  exchange(code: string, extra?: Record<string, string>): Promise<TestResponse & { json: OAuthJSON }>;
  call(token: string, tool: string, args: unknown): Promise<TestResponse>;
}

export function requestParams(params: Record<string, string | undefined> = {}): URLSearchParams {
  const all: Record<string, string | undefined> = {
    response_type: "code",
    client_id: CLIENT.ClientID,
    redirect_uri: CLIENT.RedirectURIs[0],
    state: "st-123",
    code_challenge: CHALLENGE,
    code_challenge_method: "S256",
    resource: MCP_RESOURCE,
    scope: "read",
    ...params,
  };
  const out = new URLSearchParams();
  for (const [k, v] of Object.entries(all)) if (v !== undefined) out.set(k, v);
  return out;
}

export async function startOAuthApp(t: TestContext): Promise<OAuthApp> {
  const runs: number[] = [];
  const clock = new FakeClock();
  const built: { tokens?: AgentTokens; events?: EventStore; server?: ReturnType<typeof newOAuthServer> } = {};
  const directory = {
    resolve: async (id: string): Promise<OAuthClient> => {
      const client = [CLIENT, OTHER, ACCESS_ONLY].find((c) => c.ClientID === id);
      if (client === undefined) throw new OAuthError("invalid_client", "unknown client_id");
      return client;
    },
    // As latch's own directory matches: exactly, a loopback URI with any port (RFC 8252 §7.3).
    redirectAllowed: (client: OAuthClient, uri: string) => matchesRedirectURI(client.RedirectURIs, uri),
  };
  const app = await startSigninApp(t, {
    clock,
    origin: ORIGIN,
    schema: [...events.Schema, ...agent.Schema, ...oauth.Schema],
    extend: (mux, auth, db, logger) => {
      const store = new EventStore(db, { Clock: clock });
      const tokens = new AgentTokens(db, { Clock: clock, Events: store, Sessions: auth.Sessions });
      const approvals = new Approvals(db, { Clock: clock });
      const registry = new ToolRegistry();
      registry.register(
        defineAction({
          name: "counter_add",
          method: "POST",
          route: "/counter",
          tool: {
            Description: "Adds",
            Access: ToolWrite,
            Confirm: "Add?",
            Args: [{ Name: "by", Type: "number", Required: true, Description: "amount" }],
          },
          handler: (_req, res) => void res.end(),
          run: ({ Args }) => (runs.push(Number(Args.get("by"))), { ok: true }),
        }),
      );
      registry.register(
        defineAction({
          name: "counter_get",
          method: "GET",
          route: "/counter",
          tool: { Description: "Reads", Access: ToolRead },
          handler: (_req, res) => void res.end(),
          run: ({ Subject }) => ({ subject: Subject, runs: runs.length }),
        }),
      );
      const invoker = new ToolInvoker({ Registry: registry, Approvals: approvals, Events: store, Logger: logger });
      const api = newToolsAPI({
        Invoker: invoker,
        Tokens: tokens,
        Sessions: auth.Sessions,
        Origin: ORIGIN,
        ApprovalPath: "/approvals",
        RateLimit: new ToolCallLimiter(undefined, { Clock: clock }),
      });
      mux.With(api.Authenticate).Handle("POST /api/tools/{name}", api.Call);
      const server = newOAuthServer({
        DB: db,
        Tokens: tokens,
        Clients: directory,
        Sessions: auth.Sessions,
        Origin: ORIGIN,
        SigninPath: "/signin",
        StalePath: "/stepup",
        ConsentPage: (_req, res, consent) => writeJSON(res, 200, consent),
        Clock: clock,
      });
      mux.Handle("/oauth/", server.Handler);
      mux.Handle("/.well-known/", server.WellKnown);
      built.tokens = tokens;
      built.events = store;
      built.server = server;
    },
  });
  const { tokens, events: store, server } = built;
  if (tokens === undefined || store === undefined || server === undefined) throw new Error("oauth app: not built");
  const human = await app.signIn("ada@example.com");
  const post = async (path: string, form: Record<string, string>) => {
    const res = await app.request("POST", path, { form });
    return { ...res, json: JSON.parse(res.body) as OAuthJSON };
  };
  const authorize = (params: Record<string, string | undefined> = {}, jar: CookieJar = human) =>
    app.request("GET", `/oauth/authorize?${requestParams(params).toString()}`, { jar });
  return Object.assign(app, {
    tokens,
    server,
    events: store,
    runs,
    human,
    authorize,
    async allow(params: Record<string, string | undefined> = {}) {
      const res = await app.request("POST", "/oauth/authorize", {
        jar: human,
        form: { ...Object.fromEntries(requestParams(params)), decision: "allow" },
      });
      if (res.status !== 302 || res.location === undefined) throw new Error(`allow: ${res.status} ${res.body}`);
      return new URL(res.location).searchParams;
    },
    post,
    exchange: (code: string, extra: Record<string, string> = {}) =>
      post("/oauth/token", {
        grant_type: "authorization_code",
        code,
        client_id: CLIENT.ClientID,
        redirect_uri: CLIENT.RedirectURIs[0] ?? "",
        code_verifier: VERIFIER,
        ...extra,
      }),
    call: (token: string, tool: string, args: unknown) =>
      app.request("POST", `/api/tools/${tool}`, {
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
        body: JSON.stringify(args),
      }),
  });
}
