/*
 * The token endpoint's order and refusals (lib/oauth/token-endpoint.ts): a
 * code is spent only once everything matches (RFC 6749 §4.1.3), refresh
 * only for clients registered with it (RFC 6749 §5.1, §5.2), JSON for
 * every refusal under /oauth/, an oversized body's too; and a redirect URI
 * whose port is outside 1-65535 refused before anything is stored.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DEFAULT_BODY_LIMIT } from "../../lib/http/index.ts";
import { HashToken } from "../../lib/session/index.ts";
import { count } from "../_support/signin-app.ts";
import { ACCESS_ONLY, CLIENT, MCP_RESOURCE, OTHER, TOOLS_RESOURCE, requestParams, startOAuthApp } from "./_app.ts";

describe("a code is spent only when client, redirect URI and verifier match", () => {
  const mismatches: [string, Record<string, string>, string][] = [
    ["another client", { client_id: OTHER.ClientID }, "invalid_grant"],
    ["another redirect URI", { redirect_uri: "http://127.0.0.1:33418/other" }, "invalid_grant"],
    ["a wrong verifier", { code_verifier: "w".repeat(43) }, "invalid_grant"],
    ["a malformed verifier", { code_verifier: "short" }, "invalid_grant"],
    ["another resource", { resource: MCP_RESOURCE }, "invalid_target"],
  ];
  for (const [name, extra, error] of mismatches) {
    it(`${name}: refused, the code not spent, the grant not revoked; the right client then exchanges it`, async (t) => {
      const app = await startOAuthApp(t);
      const code = (await app.allow({ resource: TOOLS_RESOURCE })).get("code") ?? "";
      const wrong = await app.exchange(code, extra);
      assert.equal(wrong.status, 400);
      assert.equal(wrong.json.error, error);
      assert.equal(count(app.db, "oauth_codes", "used_at IS NOT NULL"), 0);
      assert.equal(app.tokens.list("ada@example.com").length, 1);
      const right = await app.exchange(code);
      assert.equal(right.status, 200);
      assert.equal((await app.call(String(right.json.access_token), "counter_get", {})).status, 200);
    });
  }

  it("a spent code presented again without its verifier revokes nothing; with it, the grant is revoked (OAuth 2.1 §4.1.3)", async (t) => {
    const app = await startOAuthApp(t);
    const code = (await app.allow({ resource: TOOLS_RESOURCE })).get("code") ?? "";
    const first = await app.exchange(code);
    assert.equal(first.status, 200);
    for (const extra of [{ code_verifier: "w".repeat(43) }, { client_id: OTHER.ClientID }, { redirect_uri: "http://127.0.0.1:1/x" }]) {
      const stranger = await app.exchange(code, extra);
      assert.equal(stranger.status, 400);
      assert.equal(stranger.json.error, "invalid_grant");
    }
    assert.equal((await app.call(String(first.json.access_token), "counter_get", {})).status, 200);
    const replay = await app.exchange(code);
    assert.equal(replay.status, 400);
    assert.match(String(replay.json.error_description), /already used; the grant it issued is revoked/);
    assert.equal((await app.call(String(first.json.access_token), "counter_get", {})).status, 401);
    assert.deepEqual(app.tokens.list("ada@example.com"), []);
  });
});

describe("refresh only for clients registered with the refresh_token grant type", () => {
  it("a client without it gets no refresh token, and a refresh token of its grant is refused unauthorized_client", async (t) => {
    const app = await startOAuthApp(t);
    const code = (await app.allow({ client_id: ACCESS_ONLY.ClientID, redirect_uri: "http://127.0.0.1:40000/cb" })).get("code") ?? "";
    const res = await app.exchange(code, { client_id: ACCESS_ONLY.ClientID, redirect_uri: "http://127.0.0.1:40000/cb" });
    assert.equal(res.status, 200);
    assert.equal(typeof res.json.access_token, "string");
    assert.equal("refresh_token" in res.json, false);
    assert.equal(count(app.db, "oauth_refresh_tokens"), 0);
    // A refresh token of this grant issued before the rule (a row put in place): refused, and left unspent.
    const grant = app.tokens.list("ada@example.com")[0]?.ID ?? "";
    app.db
      .prepare("INSERT INTO oauth_refresh_tokens (token_hash, token_id, resource, created_at) VALUES (?, ?, ?, ?)")
      .run(HashToken("old-refresh-token"), grant, "http://app.test/mcp", 0);
    const refresh = await app.post("/oauth/token", {
      grant_type: "refresh_token",
      refresh_token: "old-refresh-token",
      client_id: ACCESS_ONLY.ClientID,
    });
    assert.equal(refresh.status, 400);
    assert.equal(refresh.json.error, "unauthorized_client");
    assert.match(String(refresh.json.error_description), /refresh_token grant type/);
    assert.equal(count(app.db, "oauth_refresh_tokens", "used_at IS NULL"), 1);
  });

  it("a client registered with it gets a refresh token that refreshes", async (t) => {
    const app = await startOAuthApp(t);
    assert.deepEqual(CLIENT.GrantTypes, ["authorization_code", "refresh_token"]);
    const first = await app.exchange((await app.allow()).get("code") ?? "");
    const next = await app.post("/oauth/token", {
      grant_type: "refresh_token",
      refresh_token: String(first.json.refresh_token),
      client_id: CLIENT.ClientID,
    });
    assert.equal(next.status, 200);
    assert.equal(typeof next.json.refresh_token, "string");
  });
});

describe("every refusal under /oauth/ is JSON", () => {
  for (const path of ["/oauth/token", "/oauth/revoke"]) {
    it(`an oversized POST ${path} (over DEFAULT_BODY_LIMIT) answers 413 JSON with an error field`, async (t) => {
      const app = await startOAuthApp(t);
      const res = await app.request("POST", path, {
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: `grant_type=authorization_code&pad=${"x".repeat(DEFAULT_BODY_LIMIT)}`,
      });
      assert.equal(res.status, 413);
      assert.match(String(res.headers["content-type"]), /^application\/json/);
      assert.equal(res.headers["cache-control"], "no-store");
      const body = JSON.parse(res.body) as { error: string; error_description: string };
      assert.equal(body.error, "invalid_request");
      assert.match(body.error_description, new RegExp(`larger than ${DEFAULT_BODY_LIMIT} bytes`));
    });
  }

  it("a body of exactly DEFAULT_BODY_LIMIT bytes is read", async (t) => {
    const app = await startOAuthApp(t);
    const head = "grant_type=password&pad=";
    const res = await app.request("POST", "/oauth/token", {
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: head + "x".repeat(DEFAULT_BODY_LIMIT - head.length),
    });
    assert.equal(res.status, 400);
    assert.equal(JSON.parse(res.body).error, "unsupported_grant_type");
  });

  it("a wrong content type, a wrong method and an unknown path answer JSON", async (t) => {
    const app = await startOAuthApp(t);
    for (const [method, path, headers] of [
      ["POST", "/oauth/revoke", { "Content-Type": "text/plain" }],
      ["GET", "/oauth/token", {}],
      ["POST", "/oauth/nothing-here", {}],
    ] as const) {
      const res = await app.request(method, path, method === "POST" ? { headers, body: "x" } : {});
      assert.match(String(res.headers["content-type"]), /^application\/json/, `${method} ${path}`);
      assert.equal(typeof JSON.parse(res.body).error, "string");
    }
  });
});

describe("a redirect URI whose port is outside 1-65535", () => {
  for (const port of ["0", "65536", "99999"]) {
    it(`port ${port}: the person is shown 400, never 500, and no grant or code is stored`, async (t) => {
      const app = await startOAuthApp(t);
      const params = { redirect_uri: `http://127.0.0.1:${port}/callback` };
      const shown = await app.authorize(params);
      assert.equal(shown.status, 400);
      assert.equal(shown.location, undefined);
      const posted = await app.request("POST", "/oauth/authorize", {
        jar: app.human,
        form: { ...Object.fromEntries(requestParams(params)), decision: "allow" },
      });
      assert.equal(posted.status, 400);
      assert.equal(count(app.db, "agent_tokens"), 0);
      assert.equal(count(app.db, "oauth_codes"), 0);
    });
  }

  it("ports 1 and 65535 are a loopback client's ports like any other", async (t) => {
    const app = await startOAuthApp(t);
    for (const port of ["1", "65535"]) {
      const res = await app.authorize({ redirect_uri: `http://127.0.0.1:${port}/callback` });
      assert.equal(res.status, 200, port);
    }
  });
});
