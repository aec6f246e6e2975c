/*
 * The guide's application (examples/guide, docs/guide.md step 7) as an
 * OAuth authorization server, over HTTP as a client and its person do it:
 * the MCP metadata names the server, a client registers (RFC 7591), the
 * person signed in asks, sees the starter's consent page (client name and
 * host, access, resource), allows, and the client exchanges the code with
 * its PKCE verifier at /oauth/token for a token /mcp accepts; the grant is
 * listed on /account/agents with the client's name and host.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { signInOverHTTP, startGuide, type Demo } from "../_support/demo.ts";
import { sendRequest } from "../_support/http-client.ts";

const VERIFIER = "guide-verifier-".padEnd(64, "x");
const CHALLENGE = createHash("sha256").update(VERIFIER).digest("base64url");
const REDIRECT = "http://127.0.0.1:33418/callback";

describe("the guide's application connects an MCP client by OAuth", () => {
  let app: Demo;
  before(async () => {
    app = await startGuide();
  });
  after(() => app.close());

  it("names its authorization server in the MCP resource metadata, which answers JSON", async () => {
    const resource = await sendRequest(app.origin, "GET", "/.well-known/oauth-protected-resource/mcp", {}, app.origin);
    assert.deepEqual(JSON.parse(resource.body).authorization_servers, [app.origin]);
    const metadata = await sendRequest(app.origin, "GET", "/.well-known/oauth-authorization-server", {}, app.origin);
    assert.equal(metadata.status, 200);
    assert.equal(JSON.parse(metadata.body).registration_endpoint, `${app.origin}/oauth/register`);
  });

  it("registers a client, shows the consent page, and exchanges the allowed code for a token /mcp accepts", async () => {
    const registered = await sendRequest(
      app.origin,
      "POST",
      "/oauth/register",
      {
        headers: { "Content-Type": "application/json" },
        // As MCP clients register (the official SDK's hosts too): refreshing included.
        body: JSON.stringify({
          client_name: "Desk <Assistant>",
          redirect_uris: [REDIRECT],
          grant_types: ["authorization_code", "refresh_token"],
        }),
      },
      app.origin,
    );
    assert.equal(registered.status, 201);
    const clientID = String(JSON.parse(registered.body).client_id);

    const jar = await signInOverHTTP(app, "ada@example.com");
    const query = new URLSearchParams({
      response_type: "code",
      client_id: clientID,
      redirect_uri: REDIRECT,
      code_challenge: CHALLENGE,
      code_challenge_method: "S256",
      scope: "read write",
      state: "s-1",
    });
    const consent = await sendRequest(app.origin, "GET", `/oauth/authorize?${query.toString()}`, { jar }, app.origin);
    assert.equal(consent.status, 200);
    assert.match(consent.body, /<strong data-agent-text dir="auto" data-consent-client>Desk &lt;Assistant&gt;<\/strong>/);
    assert.match(consent.body, /<code dir="ltr" data-consent-host>localhost<\/code>/);
    assert.match(consent.body, /data-consent-access="write"/);
    assert.match(consent.body, new RegExp(`<code data-consent-resource>${app.origin}/mcp</code>`));
    assert.match(consent.body, /data-consent="allow"/);
    assert.match(consent.body, /data-consent="deny"/);

    const decided = await sendRequest(
      app.origin,
      "POST",
      "/oauth/authorize",
      { jar, form: { ...Object.fromEntries(query), decision: "allow" } },
      app.origin,
    );
    assert.equal(decided.status, 302);
    const back = new URL(decided.location ?? "");
    assert.equal(`${back.origin}${back.pathname}`, REDIRECT);
    assert.equal(back.searchParams.get("state"), "s-1");
    assert.equal(back.searchParams.get("iss"), app.origin);
    const code = back.searchParams.get("code") ?? "";

    const exchanged = await sendRequest(
      app.origin,
      "POST",
      "/oauth/token",
      { form: { grant_type: "authorization_code", code, client_id: clientID, redirect_uri: REDIRECT, code_verifier: VERIFIER } },
      app.origin,
    );
    assert.equal(exchanged.status, 200, exchanged.body);
    const tokens = JSON.parse(exchanged.body);
    assert.equal(tokens.scope, "read write");
    assert.equal(typeof tokens.refresh_token, "string");

    const listed = await sendRequest(
      app.origin,
      "POST",
      "/mcp",
      {
        headers: {
          Authorization: `Bearer ${tokens.access_token}`,
          "Content-Type": "application/json",
          Accept: "application/json, text/event-stream",
          "MCP-Protocol-Version": "2025-11-25",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      },
      app.origin,
    );
    assert.equal(listed.status, 200, listed.body);
    assert.match(listed.body, /"expenses_create"/);

    const agents = await sendRequest(app.origin, "GET", "/account/agents", { jar }, app.origin);
    assert.match(
      agents.body,
      /<span data-agent-text dir="auto">Desk &lt;Assistant&gt;<\/span> · <code dir="ltr" data-agent-client-host>localhost<\/code>/,
    );
  });
});
