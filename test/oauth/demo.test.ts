/*
 * The demo as an OAuth authorization server (`node dist/examples/demo/main.js`):
 * discovery, JSON answers on every OAuth and well-known path, the MCP
 * resource metadata naming the server, and an authorization request of an
 * unknown client shown to the person, never redirected.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { join } from "node:path";
import { AgentTokens } from "../../lib/agent/index.ts";
import { OpenDB } from "../../lib/db/index.ts";
import { signInOverHTTP, startDemo, type Demo } from "../_support/demo.ts";
import { sendRequest } from "../_support/http-client.ts";

describe("the demo's authorization server", () => {
  let demo: Demo;
  before(async () => {
    demo = await startDemo();
  });
  after(() => demo.close());

  it("publishes RFC 8414 metadata, and the MCP resource metadata names it", async () => {
    const res = await sendRequest(demo.origin, "GET", "/.well-known/oauth-authorization-server", {}, demo.origin);
    assert.equal(res.status, 200);
    const metadata = JSON.parse(res.body);
    assert.equal(metadata.issuer, demo.origin);
    assert.equal(metadata.authorization_endpoint, `${demo.origin}/oauth/authorize`);
    assert.deepEqual(metadata.code_challenge_methods_supported, ["S256"]);
    const resource = await sendRequest(demo.origin, "GET", "/.well-known/oauth-protected-resource/mcp", {}, demo.origin);
    const document = JSON.parse(resource.body);
    assert.deepEqual(document.authorization_servers, [demo.origin]);
    assert.deepEqual(document.scopes_supported, ["read", "write"]);
  });

  it("answers unknown OAuth and well-known paths with JSON, never the HTML 404 page", async () => {
    for (const path of ["/.well-known/oauth-authorization-server/elsewhere", "/.well-known/nothing", "/oauth/nothing"]) {
      const res = await sendRequest(demo.origin, "GET", path, {}, demo.origin);
      assert.equal(res.status, 404, path);
      assert.match(String(res.headers["content-type"]), /^application\/json/, path);
      assert.equal(JSON.parse(res.body).error, "invalid_request", path);
    }
  });

  it("shows the person, with the application's error page, a request of a client it does not know", async () => {
    const jar = await signInOverHTTP(demo, "ada@example.com");
    const query = new URLSearchParams({
      response_type: "code",
      client_id: "https://unknown.example/client.json",
      redirect_uri: "https://unknown.example/cb",
      code_challenge: "x".repeat(43),
      code_challenge_method: "S256",
    });
    const res = await sendRequest(demo.origin, "GET", `/oauth/authorize?${query.toString()}`, { jar }, demo.origin);
    assert.equal(res.status, 400);
    assert.equal(res.location, undefined);
    assert.match(String(res.headers["content-type"]), /^text\/html/);
  });

  it("lists an OAuth grant on /account/agents with its client's name and host, revocable there", async () => {
    const jar = await signInOverHTTP(demo, "ada-grant@example.com");
    // The grant as the authorization server mints it when the person allows (test/oauth/server.test.ts drives that part).
    const db = OpenDB(join(demo.stateDir, "demo.db"));
    const grant = new AgentTokens(db).mint({
      Subject: "ada-grant@example.com",
      Name: "claude-desktop",
      Access: "read",
      Client: { ID: "https://client.example/c.json", Name: "Claude <Desktop>", Host: "client.example" },
    }).Info;
    db.close();
    const page = await sendRequest(demo.origin, "GET", "/account/agents", { jar }, demo.origin);
    assert.equal(page.status, 200);
    assert.match(page.body, new RegExp(`data-agent-id="${grant.ID}"`));
    assert.match(
      page.body,
      /<span data-agent-text dir="auto">Claude &lt;Desktop&gt;<\/span> · <code dir="ltr" data-agent-client-host>client\.example<\/code>/,
    );
    const revoked = await sendRequest(demo.origin, "POST", "/account/agents/revoke", { jar, form: { id: grant.ID } }, demo.origin);
    assert.equal(revoked.status, 303);
    const after = await sendRequest(demo.origin, "GET", "/account/agents", { jar }, demo.origin);
    assert.doesNotMatch(after.body, /data-agent-client-host/);
  });
});
