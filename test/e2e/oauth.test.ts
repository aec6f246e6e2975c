/*
 * An MCP client connects to the demo by URL (issue 23, "How it is judged"):
 * the official MCP TypeScript SDK client, with an `OAuthClientProvider` of
 * its own, against `node dist/examples/demo/main.js` (real SMTP), headless
 * Chromium acting as the person. The SDK discovers (401 → resource
 * metadata → authorization server metadata), names itself by a Client ID
 * Metadata Document this test serves over https (a test CA the demo trusts
 * through NODE_EXTRA_CA_CERTS) or registers (RFC 7591), and sends the
 * browser to the authorization URL; the person signs in there by the
 * emailed link, lands back on the consent page and allows; the code comes
 * to a loopback redirect URI this test listens on (RFC 8252 §7.3) and the
 * SDK exchanges it. Then tools/list, a read call, a write call the person
 * approves in the browser (run exactly once), a refresh, a replayed refresh
 * token ending the family, and a revocation on /account/agents ending
 * access within one request.
 */
import assert from "node:assert/strict";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { Server } from "node:http";
import { createServer as createHTTPSServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import Database from "better-sqlite3";
import { auth, type OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { McpError, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { hasChromium, launchBrowser, watchedPage, type Browser, type Page } from "../_support/browser.ts";
import { isSigninMail, startDemo, type Demo } from "../_support/demo.ts";
import { postMCP } from "../_support/mcp-client.ts";
import { sendRequest } from "../_support/http-client.ts";
import { extractLink } from "../_support/signin-app.ts";
import { testCA } from "../_support/test-ca.ts";
import { closeServer, startRedirectListener, type Redirected } from "../_support/loopback-redirect.ts";

/**
 * An in-memory `OAuthClientProvider`, as an MCP host keeps one: the SDK
 * asks it for what it stored and tells it what to store. Opening the
 * authorization URL is the person's part: it is kept for the browser.
 */
class Provider implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = "";
  authorizationURL: URL | undefined;
  readonly #redirect: string;
  readonly #name: string;

  constructor(redirect: string, name: string) {
    this.#redirect = redirect;
    this.#name = name;
  }
  get redirectUrl(): string {
    return this.#redirect;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.#name,
      redirect_uris: [this.#redirect],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  state(): string {
    return "state-of-the-host";
  }
  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.info = info;
  }
  tokens(): OAuthTokens | undefined {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL): void {
    this.authorizationURL = url;
  }
  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }
  codeVerifier(): string {
    return this.verifier;
  }
}

/** A provider that names its client by a Client ID Metadata Document: the SDK then sends the URL as the client_id. */
class DocumentProvider extends Provider {
  readonly clientMetadataUrl: string;
  constructor(redirect: string, name: string, documentURL: string) {
    super(redirect, name);
    this.clientMetadataUrl = documentURL;
  }
}

/** Connects an SDK client to the demo's /mcp through `provider`, going through the authorization when the SDK asks for it. */
async function connect(
  demo: Demo,
  provider: Provider,
  authorize: (url: URL) => Promise<Redirected>,
): Promise<{ client: Client; transport: StreamableHTTPClientTransport; redirected: Redirected }> {
  const mcp = new URL("/mcp", demo.origin);
  const first = new StreamableHTTPClientTransport(mcp, { authProvider: provider });
  const client = new Client({ name: "latch-e2e-host", version: "1.0.0" }, { capabilities: { elicitation: { url: {} } } });
  await assert.rejects(client.connect(first), /Unauthorized/);
  assert.ok(provider.authorizationURL !== undefined, "the SDK asked for the person's browser");
  const redirected = await authorize(provider.authorizationURL);
  assert.equal(redirected.error, null);
  await first.finishAuth(redirected.code ?? "");
  const transport = new StreamableHTTPClientTransport(mcp, { authProvider: provider });
  await client.connect(transport);
  return { client, transport, redirected };
}

// The consent page's form-action names the redirect URI (lib/oauth allowFormRedirect): without it Chromium
// stops the 302 that answers Allow, and this suite waits at its time limit.
describe(
  "an MCP client connects to the demo by OAuth (SDK + browser)",
  { skip: hasChromium ? false : "no system Chromium", timeout: 180_000 },
  () => {
    let demo: Demo;
    let browser: Browser;
    let page: Page;
    let errors: string[];
    let listener: Awaited<ReturnType<typeof startRedirectListener>>;
    let documentServer: Server;
    let documentURL: string;
    let caDir: string;
    // LATCH_SCREENSHOTS keeps the consent page's screenshots there; otherwise they go to a directory removed afterwards.
    const shots = process.env["LATCH_SCREENSHOTS"] ?? mkdtempSync(join(tmpdir(), "latch-consent-"));

    before(async () => {
      listener = await startRedirectListener();
      const ca = testCA();
      caDir = mkdtempSync(join(tmpdir(), "latch-e2e-ca-"));
      writeFileSync(join(caDir, "ca.pem"), ca.ca);
      documentServer = createHTTPSServer({ key: ca.key, cert: ca.cert }, (req, res) => {
        if (req.url !== "/client.json") return void res.writeHead(404).end();
        res.writeHead(200, { "content-type": "application/json" }).end(
          JSON.stringify({
            client_id: documentURL,
            client_name: "Hosted Agent",
            redirect_uris: [listener.uri],
            grant_types: ["authorization_code", "refresh_token"],
            response_types: ["code"],
            token_endpoint_auth_method: "none",
          }),
        );
      });
      documentServer.listen(0, "127.0.0.1");
      await once(documentServer, "listening");
      documentURL = `https://localhost:${(documentServer.address() as AddressInfo).port}/client.json`;
      // latch's fetcher checks certificates against Node's CA store, to which this adds the test CA.
      demo = await startDemo({ JOB_STEP_MS: "50", NODE_EXTRA_CA_CERTS: join(caDir, "ca.pem") });
      browser = await launchBrowser();
      ({ page, errors } = await watchedPage(await browser.newContext()));
    });
    after(async () => {
      await browser?.close();
      await demo?.close();
      await listener?.close();
      if (documentServer !== undefined) await closeServer(documentServer);
      rmSync(caDir, { recursive: true, force: true });
      if (process.env["LATCH_SCREENSHOTS"] === undefined) rmSync(shots, { recursive: true, force: true });
    });

    /** The person's part of an authorization: opens `url`, signs in by the emailed link if asked, and allows. */
    async function allowInBrowser(url: URL, address: string, screenshots = false): Promise<Redirected> {
      const redirected = listener.next();
      await page.goto(url.href);
      if (new URL(page.url()).pathname === "/signin") {
        const sent = demo.smtp.messages.length;
        await page.fill("#email", address);
        await page.click('form[action="/signin"] button[type="submit"]');
        await page.waitForURL(/\/signin\?sent=1$/);
        const mail = await demo.smtp.waitForMessage(
          (m) => demo.smtp.messages.indexOf(m) >= sent && m.to.includes(address) && isSigninMail(m),
        );
        await page.goto(extractLink(mail.parsed.text ?? ""));
      }
      await page.waitForSelector('button[data-consent="allow"]');
      assert.equal(new URL(page.url()).pathname, "/oauth/authorize", "back on the same request after signing in");
      if (screenshots) {
        for (const scheme of ["light", "dark"] as const) {
          await page.emulateMedia({ colorScheme: scheme });
          await page.screenshot({ path: join(shots, `consent-${scheme}.png`), fullPage: true });
        }
        await page.emulateMedia({ colorScheme: "light" });
      }
      await page.click('button[data-consent="allow"]');
      return redirected;
    }

    it("names itself by a metadata document, signs the person in inside the request, calls, refreshes, and loses the family on a replay", async () => {
      const provider = new DocumentProvider(listener.uri, "Hosted Agent", documentURL);
      const { client, redirected } = await connect(demo, provider, async (url) => {
        // Discovery gave the SDK the demo's endpoints; the request is the person's to allow.
        assert.equal(url.origin + url.pathname, `${demo.origin}/oauth/authorize`);
        assert.equal(url.searchParams.get("client_id"), documentURL);
        assert.equal(url.searchParams.get("code_challenge_method"), "S256");
        assert.equal(url.searchParams.get("resource"), `${demo.origin}/mcp`);
        return allowInBrowser(url, "ada@example.com", true);
      });
      assert.deepEqual([redirected.state, redirected.iss], ["state-of-the-host", demo.origin]);
      assert.equal(await page.textContent("[data-consent-client]").catch(() => null), null, "the browser left the consent page");
      assert.equal(provider.info?.client_id, documentURL, "no registration: the URL is the client_id");

      const tools = await client.listTools();
      const names = tools.tools.map((t) => t.name);
      assert.ok(
        ["job_status", "start_job", "expenses_list"].every((name) => names.includes(name)),
        names.join(", "),
      );
      const read = (await client.callTool({ name: "job_status", arguments: { id: "nope" } })) as CallToolResult;
      assert.equal(read.isError, true, "a read call reaches the tool (an unknown job)");

      // The write call waits for the person, who approves it in the browser; then it runs exactly once.
      let approval = "";
      try {
        await client.callTool({ name: "start_job", arguments: { kind: "ok" } });
        assert.fail("the write call ran without an approval");
      } catch (err) {
        assert.ok(err instanceof McpError && err.code === -32042, String(err));
        approval = (err.data as { elicitations: { url: string }[] }).elicitations[0]?.url ?? "";
      }
      assert.ok(approval.startsWith(`${demo.origin}/account/approvals/`), approval);
      await page.goto(approval);
      await page.click('button[data-approval="approve"]');
      await page.waitForSelector('[data-outcome="approved"]');
      const ran = (await client.callTool({ name: "start_job", arguments: { kind: "ok" } })) as CallToolResult;
      assert.equal(ran.isError, undefined);
      await assert.rejects(client.callTool({ name: "start_job", arguments: { kind: "ok" } }), (err) => err instanceof McpError);
      const db = new Database(join(demo.stateDir, "demo.db"), { readonly: true });
      try {
        const started = db
          .prepare("SELECT actor, subject FROM events WHERE type = 'tool.call' AND json_extract(data, '$.outcome') = 'started'")
          .all();
        assert.deepEqual(started, [{ actor: "agent:hosted-agent", subject: "ada@example.com" }]);
      } finally {
        db.close();
      }

      // A refresh: the SDK, holding a refresh token, rotates it (what it does when told its access token expired).
      const before = provider.saved;
      assert.ok(before?.refresh_token !== undefined);
      assert.equal(await auth(provider, { serverUrl: new URL("/mcp", demo.origin) }), "AUTHORIZED");
      const refreshed = provider.saved;
      assert.ok(
        refreshed !== undefined && refreshed.refresh_token !== before.refresh_token && refreshed.access_token !== before.access_token,
      );
      assert.ok(
        (await client.listTools()).tools.some((tool) => tool.name === "start_job"),
        "the new access token works",
      );

      // The old refresh token, replayed, is refused, and ends the whole family.
      const replayed = await sendRequest(
        demo.origin,
        "POST",
        "/oauth/token",
        { form: { grant_type: "refresh_token", refresh_token: before.refresh_token, client_id: documentURL } },
        demo.origin,
      );
      assert.deepEqual([replayed.status, JSON.parse(replayed.body).error], [400, "invalid_grant"]);
      const after = await postMCP(demo, refreshed.access_token, { jsonrpc: "2.0", id: 1, method: "tools/list" });
      assert.equal(after.status, 401);
      assert.match(String(after.headers["www-authenticate"]), /error="invalid_token"/);
      const rotated = await sendRequest(
        demo.origin,
        "POST",
        "/oauth/token",
        { form: { grant_type: "refresh_token", refresh_token: String(refreshed.refresh_token), client_id: documentURL } },
        demo.origin,
      );
      assert.deepEqual([rotated.status, JSON.parse(rotated.body).error], [400, "invalid_grant"]);
      await client.close();
      assert.deepEqual(errors, []);
    });

    it("registers (RFC 7591) when given no metadata document, and a revocation on /account/agents ends access within one request", async () => {
      const provider = new Provider(listener.uri, "Registered Agent");
      const { client } = await connect(demo, provider, (url) => allowInBrowser(url, "ada@example.com"));
      const clientID = provider.info?.client_id ?? "";
      assert.match(clientID, /^[A-Za-z0-9_-]{22,}$/, "a registered client_id, not a URL");
      assert.ok((await client.listTools()).tools.some((tool) => tool.name === "start_job"));

      await page.goto(`${demo.origin}/account/agents`);
      const row = `[data-agent-id]:has([data-agent-client-host])`;
      assert.deepEqual(
        await page.evaluate(
          `[...document.querySelectorAll("[data-agent-id]")].map((li) => li.dataset.agentName + " " + (li.querySelector("[data-agent-client-host]")?.textContent ?? ""))`,
        ),
        ["registered-agent localhost"],
        "the grant is listed with its client's name and host (the metadata document's family ended)",
      );
      await page.click(`${row} form[action="/account/agents/revoke"] button`);
      await page.waitForURL(`${demo.origin}/account/agents`);
      const access = String(provider.saved?.access_token);
      const refused = await postMCP(demo, access, { jsonrpc: "2.0", id: 1, method: "tools/list" });
      assert.equal(refused.status, 401);
      const refresh = await sendRequest(
        demo.origin,
        "POST",
        "/oauth/token",
        { form: { grant_type: "refresh_token", refresh_token: String(provider.saved?.refresh_token), client_id: clientID } },
        demo.origin,
      );
      assert.equal(refresh.status, 400);
      await client.close();
      assert.deepEqual(errors, []);
    });
  },
);
