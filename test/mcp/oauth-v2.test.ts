/*
 * The official v2 MCP client (`@modelcontextprotocol/client` 2.4.0) pinned to 2026-07-28, connecting to the demo
 * through latch's own OAuth server (issue 40, items 4 and 6): the 401 sends it to discovery (resource metadata →
 * authorization server metadata), it registers (RFC 7591) and sends the person to the authorization URL; the person,
 * signed in over HTTP with their session cookie, sees the consent page and allows; the browser's redirect reaches the
 * loopback URI this test listens on (RFC 8252 §7.3) and the client exchanges the code. Then discover, list, a read
 * call, a record read as a resource, and a write call through `input_required` approval, run once. A host that asks
 * for `read` only gets a read grant; its write call is the 403 `insufficient_scope` challenge, on which the client
 * re-authorizes asking `read write` (step-up), the person allows write access, and the retried call goes on to its
 * approval.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  auth,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from "@modelcontextprotocol/client";
import { signInOverHTTP, startDemo, type Demo } from "../_support/demo.ts";
import { sendRequest, type CookieJar } from "../_support/http-client.ts";
import { startRedirectListener, type Redirected, type RedirectListener } from "../_support/loopback-redirect.ts";
import { connectV2, V2026, type Exchange } from "../_support/mcp-v2.ts";

/** An in-memory `OAuthClientProvider` as an MCP host keeps one; opening the authorization URL is the person's part. */
class HostProvider implements OAuthClientProvider {
  info: StoredOAuthClientInformation | undefined;
  saved: StoredOAuthTokens | undefined;
  verifier = "";
  discovery: OAuthDiscoveryState | undefined;
  authorizationURLs: URL[] = [];
  readonly #redirect: string;

  constructor(redirect: string) {
    this.#redirect = redirect;
  }
  get redirectUrl(): string {
    return this.#redirect;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "V2 Host",
      redirect_uris: [this.#redirect],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  state(): string {
    return "state-of-the-v2-host";
  }
  clientInformation(): StoredOAuthClientInformation | undefined {
    return this.info;
  }
  saveClientInformation(info: StoredOAuthClientInformation): void {
    this.info = info;
  }
  tokens(): StoredOAuthTokens | undefined {
    return this.saved;
  }
  saveTokens(tokens: StoredOAuthTokens): void {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL): void {
    this.authorizationURLs.push(url);
  }
  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }
  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }
  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }
  codeVerifier(): string {
    return this.verifier;
  }
}

/** Unescapes what lib/http/html.ts escapes in an attribute value. */
function attribute(value: string): string {
  return value.replace(/&(amp|lt|gt|quot|#39);/g, (_, name: string) => ({ amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'" })[name] ?? "");
}

describe("the official v2 client pinned to 2026-07-28, through the demo's OAuth server", () => {
  let demo: Demo;
  let listener: RedirectListener;
  before(async () => {
    listener = await startRedirectListener();
    demo = await startDemo({ JOB_STEP_MS: "50" });
  });
  after(async () => {
    await demo?.close();
    await listener?.close();
  });

  /**
   * The person's part, in the browser session of `jar`: opens the authorization URL, reads the consent page (the
   * access it names is returned), allows with the page's own form, and follows the redirect to the loopback URI.
   */
  async function allow(jar: CookieJar, url: URL | undefined): Promise<{ access: string; redirected: Redirected }> {
    assert.ok(url !== undefined, "the client asked for the person's browser");
    const page = await sendRequest(demo.origin, "GET", url.pathname + url.search, { jar }, demo.origin);
    assert.equal(page.status, 200, page.body);
    const access = /data-consent-access="(\w+)"/.exec(page.body)?.[1] ?? "";
    const form = Object.fromEntries(
      [...page.body.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)].map((m) => [
        attribute(m[1] ?? ""),
        attribute(m[2] ?? ""),
      ]),
    );
    const allowed = await sendRequest(demo.origin, "POST", "/oauth/authorize", { jar, form: { ...form, decision: "allow" } }, demo.origin);
    assert.ok(allowed.location?.startsWith(`${listener.uri}?`), `${allowed.status} ${allowed.location ?? ""}`);
    const redirected = listener.next();
    const landed = await fetch(allowed.location ?? "");
    assert.equal(landed.status, 200);
    return { access, redirected: await redirected };
  }

  /** Exchanges the authorization response's code as a host does after its redirect handler got it. */
  async function finish(provider: HostProvider, redirected: Redirected): Promise<void> {
    assert.deepEqual([redirected.error, redirected.state, redirected.iss], [null, "state-of-the-v2-host", demo.origin]);
    await new StreamableHTTPClientTransport(new URL("/mcp", demo.origin), { authProvider: provider }).finishAuth(
      redirected.code ?? "",
      redirected.iss ?? undefined,
    );
  }

  /** The person approves, on the page the client opened, every approval URL the server asks for. */
  function approving(jar: CookieJar, asked: string[]) {
    return async (request: { params: unknown }) => {
      const url = String((request.params as { url?: unknown }).url);
      asked.push(url);
      const decided = await sendRequest(demo.origin, "POST", url, { jar, form: { decision: "approve" } }, demo.origin);
      assert.ok(decided.status < 400, `approve: ${decided.status}`);
      return { action: "accept" as const };
    };
  }

  it("registers, is authorized by the person, then discovers, lists, reads, reads a record and writes through input_required", async () => {
    const ada = await signInOverHTTP(demo, "ada-v2-oauth@example.com");
    const created = await sendRequest(
      demo.origin,
      "POST",
      "/expenses",
      { jar: ada, form: { label: "Lunch", amount: "12.50", category: "meals" } },
      demo.origin,
    );
    const lunch = created.location?.split("/").pop() ?? "";
    const provider = new HostProvider(listener.uri);
    const wire: Exchange[] = [];
    await assert.rejects(connectV2(demo, provider, wire, { pin: V2026 }), (err: unknown) => err instanceof UnauthorizedError);
    // 2026's discover, answered with the challenge; then resource metadata, authorization server metadata, registration.
    assert.deepEqual(
      wire.map((x) => [x.request.method, x.status]),
      [
        ["server/discover", 401],
        [undefined, 200],
        [undefined, 200],
        [undefined, 201],
      ],
    );
    const [url] = provider.authorizationURLs;
    assert.equal(`${url?.origin}${url?.pathname}`, `${demo.origin}/oauth/authorize`);
    assert.deepEqual(
      [url?.searchParams.get("scope"), url?.searchParams.get("resource"), url?.searchParams.get("code_challenge_method")],
      ["read write", `${demo.origin}/mcp`, "S256"],
      "no scope in the 401: every scope the resource supports (authorization §Scope Selection Strategy)",
    );
    assert.match(String(provider.info?.client_id), /^[A-Za-z0-9_-]{22,}$/, "registered (RFC 7591)");
    const { access, redirected } = await allow(ada, url);
    assert.equal(access, "write", "the consent page names write access");
    await finish(provider, redirected);
    assert.equal(provider.saved?.scope, "read write");

    const asked: string[] = [];
    const client = await connectV2(demo, provider, wire, { pin: V2026 }, { elicitation: { url: {} } });
    client.setRequestHandler("elicitation/create", approving(ada, asked));
    assert.equal(client.getNegotiatedProtocolVersion(), V2026);
    const tools = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(
      ["job_status", "start_job", "expenses_read"].every((name) => tools.includes(name)),
      tools.join(", "),
    );
    const read = await client.callTool({ name: "expenses_read", arguments: { id: lunch } });
    assert.equal((read.structuredContent as { label?: string }).label, "Lunch");
    const record = await client.readResource({ uri: `latch://expenses/${lunch}` });
    assert.equal(JSON.parse(String((record.contents[0] as { text?: string }).text)).label, "Lunch");

    const ran = await client.callTool({ name: "start_job", arguments: { kind: "ok" } });
    assert.equal(ran.isError, undefined);
    assert.equal(asked.length, 1);
    assert.ok(asked[0]?.startsWith(`${demo.origin}/account/approvals/`), asked[0]);
    const calls = wire.filter((x) => x.request.method === "tools/call" && x.request.params?.["name"] === "start_job");
    assert.deepEqual(
      calls.map((x) => [x.status, x.response?.result?.["resultType"], x.headers.get("authorization")?.startsWith("Bearer ")]),
      [
        [200, "input_required", true],
        [200, "complete", true],
      ],
      "held for the person, then the retry runs once",
    );
    await client.close();
  });

  it("asks for read only, then steps up to write on the insufficient_scope challenge, the person allowing write access", async () => {
    const ada = await signInOverHTTP(demo, "ada-v2-stepup@example.com");
    const provider = new HostProvider(listener.uri);
    const mcp = new URL("/mcp", demo.origin);
    // The host asks for read access only (its own choice, e.g. a read-only assistant).
    assert.equal(await auth(provider, { serverUrl: mcp, scope: "read" }), "REDIRECT");
    const first = await allow(ada, provider.authorizationURLs[0]);
    assert.equal(first.access, "read");
    await finish(provider, first.redirected);
    assert.equal(provider.saved?.scope, "read");

    const wire: Exchange[] = [];
    const asked: string[] = [];
    const client = await connectV2(demo, provider, wire, { pin: V2026 }, { elicitation: { url: {} } });
    client.setRequestHandler("elicitation/create", approving(ada, asked));
    assert.ok(!(await client.listTools()).tools.some((t) => t.name === "start_job"), "a read grant lists read tools only");

    // The write call: 403 insufficient_scope; the client's step-up asks the person for the union of its scopes and write.
    await assert.rejects(
      client.callTool({ name: "start_job", arguments: { kind: "ok" } }),
      (err: unknown) => err instanceof UnauthorizedError,
    );
    const refused = wire.find((x) => x.request.method === "tools/call");
    assert.equal(refused?.status, 403);
    assert.match(String(refused?.responseHeaders.get("www-authenticate")), /error="insufficient_scope", scope="write"/);
    const stepUp = provider.authorizationURLs[1];
    assert.equal(stepUp?.searchParams.get("scope"), "read write");
    const second = await allow(ada, stepUp);
    assert.equal(second.access, "write", "a new consent, for write access");
    await finish(provider, second.redirected);
    assert.equal(provider.saved?.scope, "read write");

    // The host retries: the write grant's call waits for its approval, then runs once.
    const ran = await client.callTool({ name: "start_job", arguments: { kind: "ok" } });
    assert.equal(ran.isError, undefined);
    assert.equal(asked.length, 1);
    const results = wire
      .filter((x) => x.request.method === "tools/call")
      .map((x) => [x.status, x.response?.result?.["resultType"] ?? x.response?.error?.code]);
    assert.deepEqual(results, [
      [403, -32600],
      [200, "input_required"],
      [200, "complete"],
    ]);
    await client.close();
  });
});
