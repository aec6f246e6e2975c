import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { OAUTH_ACCESS_TOKEN_TTL, OAUTH_CODE_TTL, OAUTH_WRITE_FRESH_FOR } from "../../lib/oauth/server.ts";
import { count } from "../_support/signin-app.ts";
import { CLIENT, MCP_RESOURCE, ORIGIN, OTHER, TOOLS_RESOURCE, requestParams, startOAuthApp } from "./_app.ts";

describe("discovery", () => {
  it("serves the RFC 8414 metadata at every path a client tries", async (t) => {
    const app = await startOAuthApp(t);
    for (const path of [
      "/.well-known/oauth-authorization-server",
      "/.well-known/openid-configuration",
      "/.well-known/oauth-authorization-server/mcp",
      "/.well-known/openid-configuration/api/tools",
    ]) {
      const res = await app.request("GET", path);
      assert.equal(res.status, 200, path);
      assert.deepEqual(JSON.parse(res.body), {
        issuer: ORIGIN,
        authorization_endpoint: `${ORIGIN}/oauth/authorize`,
        token_endpoint: `${ORIGIN}/oauth/token`,
        revocation_endpoint: `${ORIGIN}/oauth/revoke`,
        scopes_supported: ["read", "write"],
        response_types_supported: ["code"],
        grant_types_supported: ["authorization_code", "refresh_token"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["none"],
        revocation_endpoint_auth_methods_supported: ["none"],
        client_id_metadata_document_supported: true,
        authorization_response_iss_parameter_supported: true,
      });
    }
  });

  it("answers unknown well-known and oauth paths with JSON 404, never the HTML page", async (t) => {
    const app = await startOAuthApp(t);
    for (const [method, path] of [
      ["GET", "/.well-known/nothing"],
      ["GET", "/.well-known/oauth-authorization-server/elsewhere"],
      ["POST", "/oauth/register"],
      ["GET", "/oauth/nothing"],
    ] as const) {
      const res = await app.request(method, path);
      assert.equal(res.status, 404, path);
      assert.match(String(res.headers["content-type"]), /^application\/json/);
      assert.equal(JSON.parse(res.body).error, "invalid_request");
    }
    const get = await app.request("GET", "/oauth/token");
    assert.equal(get.status, 405);
    assert.equal(JSON.parse(get.body).error, "invalid_request");
  });
});

describe("GET /oauth/authorize", () => {
  it("sends a person without a session to sign in, next = the whole request", async (t) => {
    const app = await startOAuthApp(t);
    const res = await app.request("GET", `/oauth/authorize?${requestParams().toString()}`);
    assert.equal(res.status, 303);
    const next = new URL(res.location ?? "", ORIGIN).searchParams.get("next") ?? "";
    assert.equal(new URL(res.location ?? "", ORIGIN).pathname, "/signin");
    assert.equal(next, `/oauth/authorize?${requestParams().toString()}`);
  });

  it("shows the consent: the client's name and host, the access, the resource", async (t) => {
    const app = await startOAuthApp(t);
    const res = await app.authorize({ scope: "read write" });
    assert.equal(res.status, 200);
    const consent = JSON.parse(res.body);
    assert.deepEqual(consent.Client, { Name: "Claude Desktop", Host: "client.example" });
    assert.equal(consent.Access, "write");
    assert.equal(consent.Resource, MCP_RESOURCE);
    assert.equal(consent.Action, "/oauth/authorize");
    assert.deepEqual(Object.fromEntries(consent.Fields), Object.fromEntries(requestParams({ scope: "read write" })));
  });

  // CSP Level 3 §6.4.1: a browser applies form-action to the redirect answering the consent form, so the
  // consent page's policy must allow the client's redirect URI, or Allow leads nowhere in any browser.
  it("lets the consent form's redirect reach the client: form-action names the redirect URI's origin", async (t) => {
    const app = await startOAuthApp(t);
    const res = await app.authorize({});
    const csp = String(res.headers["content-security-policy"] ?? "");
    assert.match(csp, /form-action 'self' http:\/\/127\.0\.0\.1:33418(;|$)/);
    assert.match(csp, /default-src 'self'/, "the rest of the policy stays");
  });

  it("shows the person, never redirects, an unknown client or a redirect URI not the client's", async (t) => {
    const app = await startOAuthApp(t);
    for (const params of [
      { client_id: "https://nobody.example/c.json" },
      { redirect_uri: "http://127.0.0.1:33418/elsewhere" },
      { redirect_uri: OTHER.RedirectURIs[0] },
    ]) {
      const res = await app.authorize(params);
      assert.equal(res.status, 400, JSON.stringify(params));
      assert.equal(res.location, undefined);
    }
  });

  const redirected: [string, Record<string, string | undefined>, string][] = [
    ["a missing code_challenge", { code_challenge: undefined, code_challenge_method: undefined }, "invalid_request"],
    ["the plain PKCE method", { code_challenge_method: "plain" }, "invalid_request"],
    ["no code_challenge_method (plain by default)", { code_challenge_method: undefined }, "invalid_request"],
    ["a response_type other than code", { response_type: "token" }, "unsupported_response_type"],
    ["a resource not this server's", { resource: "https://evil.example/mcp" }, "invalid_target"],
    ["an unknown scope", { scope: "read admin" }, "invalid_scope"],
  ];
  for (const [name, params, error] of redirected) {
    it(`redirects ${name} back as ${error}, with state and iss`, async (t) => {
      const app = await startOAuthApp(t);
      const res = await app.authorize(params);
      assert.equal(res.status, 302);
      const url = new URL(res.location ?? "");
      assert.equal(url.origin + url.pathname, CLIENT.RedirectURIs[0]);
      assert.equal(url.searchParams.get("error"), error);
      assert.equal(url.searchParams.get("state"), "st-123");
      assert.equal(url.searchParams.get("iss"), ORIGIN);
    });
  }

  it("asks a session older than 5 minutes (OAUTH_WRITE_FRESH_FOR) to authenticate again for write access", async (t) => {
    const app = await startOAuthApp(t);
    assert.equal(OAUTH_WRITE_FRESH_FOR, 5 * 60 * 1000);
    app.clock.advance(OAUTH_WRITE_FRESH_FOR);
    assert.equal((await app.authorize({ scope: "read write" })).status, 200);
    assert.equal((await app.authorize({ scope: "read" })).status, 200);
    app.clock.advance(1);
    const stale = await app.authorize({ scope: "read write" });
    assert.equal(stale.status, 303);
    assert.match(stale.location ?? "", /^\/stepup\?next=%2Foauth%2Fauthorize%3F/);
    assert.equal((await app.authorize({ scope: "read" })).status, 200);
  });

  it("shows the person a parameter longer than 2048 characters (MAX_OAUTH_PARAM) or given twice", async (t) => {
    const app = await startOAuthApp(t);
    assert.equal((await app.authorize({ state: "s".repeat(2048) })).status, 200);
    const long = await app.authorize({ state: "s".repeat(2049) });
    assert.equal(long.status, 400);
    assert.equal(long.location, undefined);
    const twice = await app.request("GET", `/oauth/authorize?${requestParams().toString()}&state=again`, { jar: app.human });
    assert.equal(twice.status, 400);
  });

  it("redirects a declined request with access_denied", async (t) => {
    const app = await startOAuthApp(t);
    const res = await app.request("POST", "/oauth/authorize", {
      jar: app.human,
      form: { ...Object.fromEntries(requestParams()), decision: "deny" },
    });
    assert.equal(res.status, 302);
    const query = new URL(res.location ?? "").searchParams;
    assert.equal(query.get("error"), "access_denied");
    assert.equal(query.get("iss"), ORIGIN);
    assert.equal(count(app.db, "agent_tokens"), 0);
  });

  it("refuses a decision posted from another origin", async (t) => {
    const app = await startOAuthApp(t);
    const res = await app.request("POST", "/oauth/authorize", {
      jar: app.human,
      form: { ...Object.fromEntries(requestParams()), decision: "allow" },
      headers: { Origin: "https://evil.example" },
    });
    assert.equal(res.status, 403);
    assert.equal(count(app.db, "agent_tokens"), 0);
  });
});

describe("the flow", () => {
  it("allow → code → tokens: the grant is an agent token named after the client, listed with its host", async (t) => {
    const app = await startOAuthApp(t);
    const query = await app.allow({ scope: "read write" });
    assert.equal(query.get("state"), "st-123");
    assert.equal(query.get("iss"), ORIGIN);
    const code = query.get("code") ?? "";
    assert.equal(count(app.db, "oauth_codes", "code_hash = ?", code), 0, "only the code's hash is stored");
    const res = await app.exchange(code);
    assert.equal(res.status, 200);
    assert.equal(res.headers["cache-control"], "no-store");
    assert.equal(res.json.token_type, "Bearer");
    assert.equal(res.json.expires_in, OAUTH_ACCESS_TOKEN_TTL / 1000);
    assert.equal(res.json.expires_in, 3600);
    assert.equal(res.json.scope, "read write");
    const [grant] = app.tokens.list("ada@example.com");
    assert.equal(grant?.Name, "claude-desktop");
    assert.deepEqual(grant?.Client, { ID: CLIENT.ClientID, Name: "Claude Desktop", Host: "client.example" });
    // A second grant of the same client gets the next free name.
    await app.allow();
    assert.deepEqual(
      app.tokens
        .list("ada@example.com")
        .map((i) => i.Name)
        .sort(),
      ["claude-desktop", "claude-desktop-2"],
    );
    const minted = app.events.latest(`audit:ada@example.com`, 10, "human").map((e) => e.Type);
    assert.ok(minted.filter((type) => type === "agent.token_minted").length === 2, JSON.stringify(minted));
  });

  it("the access token works at its resource only (RFC 8707), and a read grant cannot write", async (t) => {
    const app = await startOAuthApp(t);
    const forTools = await app.exchange((await app.allow({ resource: TOOLS_RESOURCE })).get("code") ?? "");
    const read = await app.call(String(forTools.json.access_token), "counter_get", {});
    assert.equal(read.status, 200, read.body);
    assert.equal(JSON.parse(read.body).result.subject, "ada@example.com");
    const write = await app.call(String(forTools.json.access_token), "counter_add", { by: 1 });
    assert.equal(write.status, 403, write.body);
    const forMCP = await app.exchange((await app.allow()).get("code") ?? "");
    const elsewhere = await app.call(String(forMCP.json.access_token), "counter_get", {});
    assert.equal(elsewhere.status, 401);
    assert.match(String(elsewhere.headers["www-authenticate"]), /invalid_token/);
  });

  it("an access token expires after OAUTH_ACCESS_TOKEN_TTL; the refresh token then gets a new one", async (t) => {
    const app = await startOAuthApp(t);
    const tokens = await app.exchange((await app.allow({ resource: TOOLS_RESOURCE })).get("code") ?? "");
    app.clock.advance(OAUTH_ACCESS_TOKEN_TTL - 1);
    assert.equal((await app.call(String(tokens.json.access_token), "counter_get", {})).status, 200);
    app.clock.advance(1);
    assert.equal((await app.call(String(tokens.json.access_token), "counter_get", {})).status, 401);
    const refreshed = await app.post("/oauth/token", {
      grant_type: "refresh_token",
      refresh_token: String(tokens.json.refresh_token),
      client_id: CLIENT.ClientID,
    });
    assert.equal(refreshed.status, 200, refreshed.body);
    assert.notEqual(refreshed.json.refresh_token, tokens.json.refresh_token);
    assert.equal((await app.call(String(refreshed.json.access_token), "counter_get", {})).status, 200);
  });
});

describe("POST /oauth/token refusals", () => {
  it("a code is single-use: used again, it is refused and the grant it issued revoked", async (t) => {
    const app = await startOAuthApp(t);
    const code = (await app.allow({ resource: TOOLS_RESOURCE })).get("code") ?? "";
    const first = await app.exchange(code);
    assert.equal(first.status, 200);
    const again = await app.exchange(code);
    assert.equal(again.status, 400);
    assert.equal(again.json.error, "invalid_grant");
    assert.equal(again.headers["cache-control"], "no-store");
    assert.equal((await app.call(String(first.json.access_token), "counter_get", {})).status, 401);
    assert.deepEqual(app.tokens.list("ada@example.com"), []);
  });

  it("refuses a code presented by another client", async (t) => {
    const app = await startOAuthApp(t);
    const code = (await app.allow()).get("code") ?? "";
    const res = await app.exchange(code, { client_id: OTHER.ClientID });
    assert.equal(res.status, 400);
    assert.equal(res.json.error, "invalid_grant");
    assert.match(String(res.json.error_description), /another client/);
  });

  it("refuses a code after 60 s (OAUTH_CODE_TTL)", async (t) => {
    const app = await startOAuthApp(t);
    assert.equal(OAUTH_CODE_TTL, 60_000);
    const late = (await app.allow()).get("code") ?? "";
    const inTime = (await app.allow()).get("code") ?? "";
    app.clock.advance(OAUTH_CODE_TTL - 1);
    assert.equal((await app.exchange(inTime)).status, 200);
    app.clock.advance(1);
    const res = await app.exchange(late);
    assert.equal(res.status, 400);
    assert.equal(res.json.error, "invalid_grant");
  });

  it("refuses a wrong verifier, another redirect URI, another resource", async (t) => {
    const app = await startOAuthApp(t);
    const cases: [Record<string, string>, string][] = [
      [{ code_verifier: "w".repeat(43) }, "invalid_grant"],
      [{ redirect_uri: "http://127.0.0.1:33418/other" }, "invalid_grant"],
      [{ resource: TOOLS_RESOURCE }, "invalid_target"],
    ];
    for (const [extra, error] of cases) {
      const res = await app.exchange((await app.allow()).get("code") ?? "", extra);
      assert.equal(res.status, 400, JSON.stringify(extra));
      assert.equal(res.json.error, error, JSON.stringify(extra));
    }
  });

  it("refuses a missing field, an unknown grant type and a JSON body, each as RFC 6749 §5.2 JSON", async (t) => {
    const app = await startOAuthApp(t);
    const missing = await app.post("/oauth/token", { grant_type: "authorization_code", client_id: CLIENT.ClientID });
    assert.deepEqual(missing.json, { error: "invalid_request", error_description: "code is required" });
    const unknown = await app.post("/oauth/token", { grant_type: "password" });
    assert.equal(unknown.json.error, "unsupported_grant_type");
    const json = await app.request("POST", "/oauth/token", { headers: { "Content-Type": "application/json" }, body: "{}" });
    assert.equal(json.status, 400);
    assert.equal(JSON.parse(json.body).error, "invalid_request");
    assert.equal(json.headers["cache-control"], "no-store");
  });
});

describe("refresh and revocation", () => {
  it("a replayed refresh token revokes the whole family", async (t) => {
    const app = await startOAuthApp(t);
    const first = await app.exchange((await app.allow({ resource: TOOLS_RESOURCE })).get("code") ?? "");
    const refresh = (token: unknown) =>
      app.post("/oauth/token", { grant_type: "refresh_token", refresh_token: String(token), client_id: CLIENT.ClientID });
    const second = await refresh(first.json.refresh_token);
    assert.equal(second.status, 200);
    const replay = await refresh(first.json.refresh_token);
    assert.equal(replay.status, 400);
    assert.equal(replay.json.error, "invalid_grant");
    assert.equal((await app.call(String(second.json.access_token), "counter_get", {})).status, 401);
    assert.equal((await refresh(second.json.refresh_token)).status, 400);
    assert.deepEqual(app.tokens.list("ada@example.com"), []);
    // Nothing of the ended family is kept: its refresh tokens and codes are deleted with it.
    assert.equal(count(app.db, "oauth_refresh_tokens"), 0);
    assert.equal(count(app.db, "oauth_codes"), 0);
  });

  it("POST /oauth/revoke: 200 for anything; a refresh token ends the grant, an access token only itself", async (t) => {
    const app = await startOAuthApp(t);
    const tokens = await app.exchange((await app.allow({ resource: TOOLS_RESOURCE })).get("code") ?? "");
    const unknown = await app.post("/oauth/revoke", { token: "x".repeat(43), client_id: CLIENT.ClientID });
    assert.equal(unknown.status, 200);
    const access = await app.post("/oauth/revoke", { token: String(tokens.json.access_token), client_id: CLIENT.ClientID });
    assert.equal(access.status, 200);
    assert.equal((await app.call(String(tokens.json.access_token), "counter_get", {})).status, 401);
    assert.equal(app.tokens.list("ada@example.com").length, 1);
    // Another client cannot revoke this client's grant.
    await app.post("/oauth/revoke", { token: String(tokens.json.refresh_token), client_id: OTHER.ClientID });
    assert.equal(app.tokens.list("ada@example.com").length, 1);
    await app.post("/oauth/revoke", { token: String(tokens.json.refresh_token), client_id: CLIENT.ClientID });
    assert.deepEqual(app.tokens.list("ada@example.com"), []);
  });

  it("revoking the grant where the person lists tokens ends access within one request", async (t) => {
    const app = await startOAuthApp(t);
    const tokens = await app.exchange((await app.allow({ resource: TOOLS_RESOURCE })).get("code") ?? "");
    assert.equal((await app.call(String(tokens.json.access_token), "counter_get", {})).status, 200);
    const [grant] = app.tokens.list("ada@example.com");
    assert.ok(app.tokens.revoke("ada@example.com", grant?.ID ?? ""));
    assert.equal((await app.call(String(tokens.json.access_token), "counter_get", {})).status, 401);
    const refreshed = await app.post("/oauth/token", {
      grant_type: "refresh_token",
      refresh_token: String(tokens.json.refresh_token),
      client_id: CLIENT.ClientID,
    });
    assert.equal(refreshed.json.error, "invalid_grant");
  });
});
