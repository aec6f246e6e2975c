/*
 * The demo as an OAuth authorization server (`node dist/examples/demo/main.js`):
 * discovery, JSON answers on every OAuth and well-known path, the MCP
 * resource metadata naming the server, an authorization request of an
 * unknown client shown to the person, never redirected, and the consent
 * page naming the teams a grant reaches with the person's role in each.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { join } from "node:path";
import { AgentTokens } from "../../lib/agent/index.ts";
import { OpenDB } from "../../lib/db/index.ts";
import { signInOverHTTP, startDemo, type Demo } from "../_support/demo.ts";
import { sendRequest, type CookieJar } from "../_support/http-client.ts";

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

  it("names on the consent page the teams the grant reaches, with the person's role in each (issue 38)", async () => {
    const ada = await signInOverHTTP(demo, "ada-teams@example.com");
    const bob = await signInOverHTTP(demo, "bob-teams@example.com");
    const created = async (jar: CookieJar, name: string): Promise<string> => {
      const res = await sendRequest(demo.origin, "POST", "/teams", { jar, form: { name } }, demo.origin);
      const id = /^\/teams\/([A-Za-z0-9_-]+)/.exec(res.location ?? "")?.[1];
      assert.ok(id !== undefined, `POST /teams answered ${res.status} ${res.location ?? ""}`);
      return id;
    };
    const atelier = await created(ada, "Atelier");
    const bench = await created(bob, "Bench");
    // Bob invites Ada as a viewer; she accepts through the emailed link.
    const mails = demo.smtp.messages.length;
    const invited = await sendRequest(
      demo.origin,
      "POST",
      `/teams/${bench}/invitations`,
      { jar: bob, form: { email: "ada-teams@example.com", role: "viewer" } },
      demo.origin,
    );
    assert.equal(invited.status, 303);
    const mail = await demo.smtp.waitForMessage(
      (m) => demo.smtp.messages.indexOf(m) >= mails && /\/teams\/join\?token=/.test(m.parsed.text ?? ""),
    );
    const token = /\/teams\/join\?token=([A-Za-z0-9_-]+)/.exec(mail.parsed.text ?? "")?.[1] ?? "";
    const joined = await sendRequest(demo.origin, "POST", "/teams/join", { jar: ada, form: { token } }, demo.origin);
    assert.equal(joined.location, `/teams/${bench}?joined=1`);

    const registered = await sendRequest(
      demo.origin,
      "POST",
      "/oauth/register",
      {
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ client_name: "Team client", redirect_uris: ["http://127.0.0.1:9/cb"] }),
      },
      demo.origin,
    );
    assert.equal(registered.status, 201, registered.body);
    const query = new URLSearchParams({
      response_type: "code",
      client_id: String(JSON.parse(registered.body).client_id),
      redirect_uri: "http://127.0.0.1:9/cb",
      code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
      code_challenge_method: "S256",
      scope: "write",
    });
    const consent = async (jar: CookieJar): Promise<string> => {
      const res = await sendRequest(demo.origin, "GET", `/oauth/authorize?${query.toString()}`, { jar }, demo.origin);
      assert.equal(res.status, 200);
      assert.match(res.body, /data-consent="allow"/);
      return res.body;
    };
    const teams = (body: string): string[] =>
      [...body.matchAll(/data-consent-team="([^"]+)" data-consent-team-role="([^"]+)"><span dir="auto">([^<]*)</g)].map((m) =>
        m.slice(1).join(" "),
      );
    const adas = await consent(ada);
    assert.deepEqual(teams(adas).sort(), [`${atelier} owner Atelier`, `${bench} viewer Bench`].sort());
    assert.match(adas, /It reaches the records of your teams, with no more than your role in each allows:/);
    assert.match(adas, /Owner<\/span>/);
    assert.match(adas, /Viewer<\/span>/);
    assert.deepEqual(teams(await consent(bob)), [`${bench} owner Bench`]);
    const carol = await signInOverHTTP(demo, "carol-teams@example.com");
    const carols = await consent(carol);
    assert.deepEqual(teams(carols), []);
    assert.match(carols, /<p data-consent-teams>It reaches no team&#39;s records: you are in no team\.<\/p>/);
  });
});
