/*
 * The authorization server's housekeeping (`Sweep(now)`, called on the
 * application's sweep interval as sign-in's is): codes that lapsed or
 * whose grant ended, refresh tokens of grants revoked on /account/agents
 * or expired, access tokens expired or of an ended grant, and
 * registrations unused for REGISTRATION_IDLE_TTL. Live grants keep
 * everything, spent refresh tokens included (a replay must still be
 * recognised). Each call deletes in lib/db's bounded steps.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { setImmediate } from "node:timers/promises";
import * as agent from "../../lib/agent/index.ts";
import { AgentTokens } from "../../lib/agent/index.ts";
import { AGENT_TOKEN_TTL } from "../../lib/agent/tokens.ts";
import { applySchema, SWEEP_STEP } from "../../lib/db/index.ts";
import * as events from "../../lib/events/index.ts";
import { REGISTRATION_IDLE_TTL } from "../../lib/oauth/clients.ts";
import * as oauth from "../../lib/oauth/index.ts";
import { OAUTH_ACCESS_TOKEN_TTL, OAUTH_CODE_TTL } from "../../lib/oauth/server.ts";
import * as session from "../../lib/session/index.ts";
import { FakeClock } from "../_support/clock.ts";
import { open } from "../_support/db.ts";
import { startOAuthApp, type OAuthApp } from "./_app.ts";

const count = (app: OAuthApp, table: string, tokenID: string): number =>
  (app.db.prepare(`SELECT count(*) AS n FROM ${table} WHERE token_id = ?`).get(tokenID) as { n: number }).n;

/** Allows the default request and exchanges its code: the grant's id and its tokens. */
async function connect(app: OAuthApp): Promise<{ id: string; access: string; refresh: string }> {
  const before = new Set(app.tokens.list("ada@example.com").map((g) => g.ID));
  const code = (await app.allow()).get("code") ?? "";
  const { json } = await app.exchange(code);
  const id = app.tokens.list("ada@example.com").find((g) => !before.has(g.ID))?.ID ?? "";
  return { id, access: String(json.access_token), refresh: String(json.refresh_token) };
}

describe("OAuth server Sweep", () => {
  test("deletes the codes, refresh and access tokens of a grant revoked on the token page; a live grant keeps its own", async (t) => {
    const app = await startOAuthApp(t);
    const revoked = await connect(app);
    const live = await connect(app);
    await app.allow(); // a code never exchanged, of a third grant
    assert.ok(app.tokens.revoke("ada@example.com", revoked.id));
    const result = await app.server.Sweep(app.clock.now());
    assert.equal(count(app, "oauth_refresh_tokens", revoked.id), 0);
    assert.equal(count(app, "agent_access_tokens", revoked.id), 0);
    assert.equal(count(app, "oauth_codes", revoked.id), 0);
    assert.equal(count(app, "oauth_refresh_tokens", live.id), 1);
    assert.equal(count(app, "agent_access_tokens", live.id), 1);
    assert.equal(count(app, "oauth_codes", live.id), 1, "a spent code of a live grant stays until it lapses");
    assert.deepEqual(result, { Codes: 1, RefreshTokens: 1, AccessTokens: 1, Clients: 0 });
  });

  test("deletes lapsed codes and expired access tokens; a live grant keeps its refresh tokens, spent ones included", async (t) => {
    const app = await startOAuthApp(t);
    const live = await connect(app);
    app.clock.advance(OAUTH_CODE_TTL - 1);
    assert.equal((await app.server.Sweep(app.clock.now())).Codes, 0);
    app.clock.advance(1);
    assert.equal((await app.server.Sweep(app.clock.now())).Codes, 1);
    const refreshed = await app.post("/oauth/token", {
      grant_type: "refresh_token",
      refresh_token: live.refresh,
      client_id: "https://client.example/oauth/metadata.json",
    });
    assert.equal(refreshed.status, 200);
    app.clock.advance(OAUTH_ACCESS_TOKEN_TTL - OAUTH_CODE_TTL - 1);
    assert.equal((await app.server.Sweep(app.clock.now())).AccessTokens, 0);
    app.clock.advance(1);
    assert.equal((await app.server.Sweep(app.clock.now())).AccessTokens, 1, "the first access token expired; the refreshed one lives");
    assert.equal(count(app, "oauth_refresh_tokens", live.id), 2);
  });

  test("deletes the refresh and access tokens of an expired grant", async (t) => {
    const app = await startOAuthApp(t);
    const grant = await connect(app);
    await app.post("/oauth/token", {
      grant_type: "refresh_token",
      refresh_token: grant.refresh,
      client_id: "https://client.example/oauth/metadata.json",
    });
    app.clock.advance(AGENT_TOKEN_TTL - 1);
    await app.server.Sweep(app.clock.now());
    assert.equal(count(app, "oauth_refresh_tokens", grant.id), 2);
    app.clock.advance(1);
    assert.deepEqual(await app.server.Sweep(app.clock.now()), { Codes: 0, RefreshTokens: 2, AccessTokens: 0, Clients: 0 });
    assert.equal(count(app, "oauth_refresh_tokens", grant.id), 0);
  });

  test(`deletes a table in steps of ${SWEEP_STEP} rows (lib/db sweepInSteps) until none is left`, async (t) => {
    const app = await startOAuthApp(t);
    const grant = await connect(app);
    const insert = app.db.prepare("INSERT INTO agent_access_tokens (token_hash, token_id, resource, expires_at) VALUES (?, ?, ?, ?)");
    app.db.transaction(() => {
      for (let i = 0; i < 2 * SWEEP_STEP + 1; i++) insert.run(`lapsed-${i}`, grant.id, "http://app.test/mcp", 1);
    })();
    const deleted: number[] = [];
    const step = app.db.prepare("SELECT count(*) FROM agent_access_tokens WHERE expires_at = 1").pluck();
    const sweeping = app.server.Sweep(app.clock.now());
    for (let left = step.get(); left !== 0; left = step.get()) {
      await setImmediate();
      deleted.push((left as number) - (step.get() as number));
    }
    assert.ok(Math.max(...deleted) <= SWEEP_STEP, `no step deleted more than ${SWEEP_STEP}: ${deleted.join(", ")}`);
    assert.equal((await sweeping).AccessTokens, 2 * SWEEP_STEP + 1, "one call takes them all");
    app.clock.advance(OAUTH_ACCESS_TOKEN_TTL);
    assert.equal((await app.server.Sweep(app.clock.now())).AccessTokens, 1);
  });

  test(`deletes registrations unused for ${REGISTRATION_IDLE_TTL / 86_400_000} days (the default client directory)`, async (t) => {
    const clock = new FakeClock();
    const db = open(t, ":memory:");
    applySchema(db, [...session.Schema, ...events.Schema, ...agent.Schema, ...oauth.Schema]);
    const server = oauth.newOAuthServer({
      DB: db,
      Tokens: new AgentTokens(db, { Clock: clock }),
      Sessions: new session.Sessions(db, { Origin: "http://app.test" }),
      Origin: "http://app.test",
      SigninPath: "/signin",
      ConsentPage: (_req, res) => void res.end(),
      Clock: clock,
    });
    const now = clock.now().getTime();
    const insert = db.prepare(
      "INSERT INTO oauth_clients (client_id, client_name, redirect_uris, grant_types, registered_by, issued_at, last_used_at) VALUES (?, 'c', '[]', '[]', 'k', ?, ?)",
    );
    insert.run("idle", now - REGISTRATION_IDLE_TTL, now - REGISTRATION_IDLE_TTL);
    insert.run("used", now - REGISTRATION_IDLE_TTL, now - 1);
    assert.equal((await server.Sweep(clock.now())).Clients, 1);
    assert.deepEqual(db.prepare("SELECT client_id FROM oauth_clients").all(), [{ client_id: "used" }]);
  });
});
