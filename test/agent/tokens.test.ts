import { describe, it, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { applySchema, type DB } from "../../lib/db/index.ts";
import * as session from "../../lib/session/index.ts";
import { TOKEN_PATTERN } from "../../lib/session/index.ts";
import { AgentTokens, Schema, ToolRead, ToolWrite, isAgentError, verifyBearer } from "../../lib/agent/index.ts";
import { AGENT_TOKEN_TTL, MAX_AGENT_TOKENS, type AgentTokensOptions, type MintInput } from "../../lib/agent/tokens.ts";
import { fetchHTTP, startHandler } from "../_support/http.ts";
import { open } from "../_support/db.ts";
import { FakeClock } from "../_support/clock.ts";
import { count } from "../_support/signin-app.ts";
import { credentialHeld } from "../../lib/internal/index.ts";

function tokenStore(t: TestContext, options: Omit<AgentTokensOptions, "Clock"> = {}): { db: DB; tokens: AgentTokens; clock: FakeClock } {
  const db = open(t, ":memory:");
  applySchema(db, [...session.Schema, ...Schema]);
  const clock = new FakeClock();
  return { db, tokens: new AgentTokens(db, { Clock: clock, ...options }), clock };
}

const DAY = 24 * 60 * 60 * 1000;

const ada = "ada@example.com";

describe("AgentTokens.mint()", () => {
  it("returns the token once and stores only its SHA-256", async (t) => {
    const { db, tokens, clock } = tokenStore(t);
    const { Token, Info } = tokens.mint({ Subject: ada, Name: "claude", Access: ToolWrite });
    assert.match(Token, TOKEN_PATTERN);
    assert.deepEqual(
      { ...Info },
      {
        ID: Info.ID,
        Name: "claude",
        Access: "write",
        CreatedAt: clock.now(),
        ExpiresAt: new Date(clock.now().getTime() + AGENT_TOKEN_TTL),
        LastUsedAt: undefined,
      },
    );
    const dump = JSON.stringify(db.prepare("SELECT * FROM agent_tokens").all());
    assert.ok(!dump.includes(Token), "the token itself is never stored");
    assert.ok(dump.includes(session.HashToken(Token)));
  });

  const bad: { name: string; input: MintInput; message: RegExp }[] = [
    { name: "a name with spaces", input: { Subject: ada, Name: "my bot", Access: ToolRead }, message: /name must be/ },
    { name: "an uppercase name", input: { Subject: ada, Name: "Claude", Access: ToolRead }, message: /name must be/ },
    { name: "a name with a colon", input: { Subject: ada, Name: "agent:x", Access: ToolRead }, message: /name must be/ },
    { name: "an empty name", input: { Subject: ada, Name: "", Access: ToolRead }, message: /name must be/ },
    { name: "a name of 65 characters", input: { Subject: ada, Name: "a".repeat(65), Access: ToolRead }, message: /name must be/ },
    // The name of the application's scheduled work (Actor.System, lib/manifest README "Records from a job").
    { name: "the reserved name system", input: { Subject: ada, Name: "system", Access: ToolRead }, message: /name "system" is reserved/ },
    { name: "an unknown access", input: { Subject: ada, Name: "bot", Access: "admin" }, message: /access must be "read" or "write"/ },
    { name: "no subject", input: { Subject: "", Name: "bot", Access: ToolRead }, message: /no subject/ },
    { name: "a zero lifetime", input: { Subject: ada, Name: "bot", Access: ToolRead, TTL: 0 }, message: /TTL/ },
    { name: "a fractional lifetime", input: { Subject: ada, Name: "bot", Access: ToolRead, TTL: 1.5 }, message: /TTL/ },
    { name: "a lifetime past a year", input: { Subject: ada, Name: "bot", Access: ToolRead, TTL: 367 * DAY }, message: /TTL/ },
  ];
  for (const row of bad) {
    it(`refuses ${row.name} with 400 and a message, storing nothing`, async (t) => {
      const { db, tokens } = tokenStore(t);
      assert.throws(
        () => tokens.mint(row.input),
        (err: unknown) =>
          isAgentError(err) &&
          err.code === "ERR_AGENT_INVALID_TOKEN" &&
          err.status === 400 &&
          row.message.test(err.message) &&
          err.message.startsWith("mint agent token: "),
      );
      assert.equal(count(db, "agent_tokens"), 0);
    });
  }

  it("refuses a second live token of the same name with 409, and allows it again once revoked", async (t) => {
    const { db, tokens } = tokenStore(t);
    const first = tokens.mint({ Subject: ada, Name: "bot", Access: ToolRead });
    assert.throws(
      () => tokens.mint({ Subject: ada, Name: "bot", Access: ToolWrite }),
      (err: unknown) => isAgentError(err) && err.code === "ERR_AGENT_TOKEN_NAME_TAKEN" && err.status === 409,
    );
    assert.equal(count(db, "agent_tokens"), 1);
    tokens.mint({ Subject: "bob@example.com", Name: "bot", Access: ToolRead });
    assert.equal(tokens.revoke(ada, first.Info.ID), true);
    tokens.mint({ Subject: ada, Name: "bot", Access: ToolRead });
    assert.equal(count(db, "agent_tokens"), 3);
  });
});

describe("AgentTokens.verify()", () => {
  it("grants the minting person's subject and access, and records the last use", async (t) => {
    const { tokens, clock } = tokenStore(t);
    const { Token, Info } = tokens.mint({ Subject: ada, Name: "bot", Access: ToolRead });
    clock.advance(60_000);
    assert.deepEqual({ ...(await tokens.verify(Token)) }, { TokenID: Info.ID, Subject: ada, Name: "bot", Access: "read" });
    assert.deepEqual(tokens.list(ada)[0]?.LastUsedAt, clock.now());
  });

  it("answers malformed, unknown and revoked tokens alike", async (t) => {
    const { tokens } = tokenStore(t);
    const { Token, Info } = tokens.mint({ Subject: ada, Name: "bot", Access: ToolWrite });
    assert.equal(tokens.revoke("bob@example.com", Info.ID), false, "another person's id revokes nothing");
    assert.ok((await tokens.verify(Token)) !== undefined);
    assert.equal(tokens.revoke(ada, Info.ID), true);
    assert.equal(tokens.revoke(ada, Info.ID), false);
    for (const presented of [Token, session.NewToken(), "short", "", Token + "x", "a".repeat(42) + "!"]) {
      assert.equal(await tokens.verify(presented), undefined, presented);
    }
    assert.deepEqual(tokens.list(ada), []);
  });
});

describe("AgentTokens.list()", () => {
  it("lists a person's live tokens, newest first, with name, access, creation and last use", async (t) => {
    const { tokens, clock } = tokenStore(t);
    tokens.mint({ Subject: ada, Name: "one", Access: ToolRead });
    clock.advance(1000);
    tokens.mint({ Subject: ada, Name: "two", Access: ToolWrite });
    tokens.mint({ Subject: "bob@example.com", Name: "three", Access: ToolWrite });
    assert.deepEqual(
      tokens.list(ada).map((i) => [i.Name, i.Access, i.CreatedAt.getTime() - clock.now().getTime(), i.LastUsedAt]),
      [
        ["two", "write", 0, undefined],
        ["one", "read", -1000, undefined],
      ],
    );
  });
});

describe("verifyBearer()", () => {
  it("binds a check a write asks in each transaction that reads the one token, however many the person holds (issue 44)", async (t) => {
    const { db, tokens } = tokenStore(t);
    const { Token, Info } = tokens.mint({ Subject: ada, Name: "claude", Access: ToolWrite });
    for (let k = 0; k < MAX_AGENT_TOKENS - 1; k++) tokens.mint({ Subject: ada, Name: `other-${k}`, Access: ToolRead });
    const statement = Object.getPrototypeOf(db.prepare("SELECT 1")) as { get: () => unknown; all: () => unknown[] };
    const got = t.mock.method(statement, "get");
    const listed = t.mock.method(statement, "all");
    const answers: string[] = [];
    const { port } = await startHandler(t, {
      Mux: async (req, res) => {
        await verifyBearer(req, tokens);
        // The second request's token is revoked between the gate and the write's transaction: the check says no.
        if (answers.length === 1) tokens.revoke(ada, Info.ID);
        got.mock.resetCalls();
        listed.mock.resetCalls();
        const held = credentialHeld(req, ada);
        const rows =
          listed.mock.calls.reduce((n, c) => n + (c.result?.length ?? 0), 0) + got.mock.calls.filter((c) => c.result !== undefined).length;
        answers.push(`${held} ${rows}`);
        res.end();
      },
    });
    await fetchHTTP(port, "/", { headers: { Authorization: `Bearer ${Token}` } });
    await fetchHTTP(port, "/", { headers: { Authorization: `Bearer ${Token}` } });
    assert.deepEqual(answers, ["true 1", "false 0"], "one row read of the person's 20 tokens; none once revoked");
  });
  it("tells no Authorization, a refused one (malformed, unknown, revoked, another scheme) and a live token's grant", async (t) => {
    const { tokens } = tokenStore(t);
    const { Token, Info } = tokens.mint({ Subject: ada, Name: "claude", Access: ToolRead });
    const revoked = tokens.mint({ Subject: ada, Name: "old", Access: ToolRead });
    tokens.revoke(ada, revoked.Info.ID);
    const { port } = await startHandler(t, {
      Mux: async (req, res) => {
        const bearer = await verifyBearer(req, tokens);
        res.end(typeof bearer === "string" ? bearer : `${bearer.TokenID} ${bearer.Name}`);
      },
    });
    const seen: Record<string, string> = {};
    for (const [label, authorization] of [
      ["absent", undefined],
      ["live", `Bearer ${Token}`],
      ["lowercase scheme", `bearer ${Token}`],
      ["revoked", `Bearer ${revoked.Token}`],
      ["unknown", `Bearer ${"A".repeat(43)}`],
      ["malformed", "Bearer not a token"],
      ["basic", "Basic YTpi"],
    ] as const) {
      seen[label] = (await fetchHTTP(port, "/", authorization === undefined ? {} : { headers: { Authorization: authorization } })).body;
    }
    assert.deepEqual(seen, {
      absent: "none",
      live: `${Info.ID} claude`,
      "lowercase scheme": `${Info.ID} claude`,
      revoked: "invalid",
      unknown: "invalid",
      malformed: "invalid",
      basic: "invalid",
    });
  });
});

describe("agent token lifetimes and limits", () => {
  it(`expires a token AGENT_TOKEN_TTL (90 days) after minting unless the mint names its own TTL`, async (t) => {
    assert.equal(AGENT_TOKEN_TTL, 90 * DAY);
    const { tokens, clock } = tokenStore(t);
    const lasting = tokens.mint({ Subject: ada, Name: "lasting", Access: ToolRead });
    const brief = tokens.mint({ Subject: ada, Name: "brief", Access: ToolRead, TTL: DAY });
    assert.deepEqual(brief.Info.ExpiresAt, new Date(clock.now().getTime() + DAY));
    clock.advance(DAY - 1);
    assert.ok((await tokens.verify(brief.Token)) !== undefined, "alive a moment before");
    clock.advance(1);
    assert.equal(await tokens.verify(brief.Token), undefined, "dead at its expiry");
    assert.deepEqual(
      tokens.list(ada).map((i) => i.Name),
      ["lasting"],
    );
    clock.advance(AGENT_TOKEN_TTL - DAY - 1);
    assert.ok((await tokens.verify(lasting.Token)) !== undefined);
    clock.advance(1);
    assert.equal(await tokens.verify(lasting.Token), undefined);
    assert.deepEqual(tokens.list(ada), []);
    tokens.mint({ Subject: ada, Name: "lasting", Access: ToolRead }); // an expired token's name is free again
  });

  it(`refuses a person's token past MAX_AGENT_TOKENS (20) live ones with 409, never another person's`, async (t) => {
    assert.equal(MAX_AGENT_TOKENS, 20);
    const { db, tokens, clock } = tokenStore(t);
    const minted = Array.from({ length: MAX_AGENT_TOKENS }, (_, i) =>
      tokens.mint({ Subject: ada, Name: `bot${i}`, Access: ToolRead, TTL: i === 0 ? DAY : AGENT_TOKEN_TTL }),
    );
    assert.throws(
      () => tokens.mint({ Subject: ada, Name: "one-more", Access: ToolRead }),
      (err: unknown) =>
        isAgentError(err) && err.code === "ERR_AGENT_TOO_MANY_TOKENS" && err.status === 409 && /20 live tokens/.test(err.message),
    );
    assert.equal(count(db, "agent_tokens"), MAX_AGENT_TOKENS);
    tokens.mint({ Subject: "bob@example.com", Name: "bot", Access: ToolRead });
    tokens.revoke(ada, minted[1]?.Info.ID ?? "");
    tokens.mint({ Subject: ada, Name: "after-revoke", Access: ToolRead });
    clock.advance(DAY);
    tokens.mint({ Subject: ada, Name: "after-expiry", Access: ToolRead });
  });

  it("ends a person's tokens with Sessions.RevokeAll when given the Sessions store, and only that person's", async (t) => {
    const db = open(t, ":memory:");
    applySchema(db, [...session.Schema, ...Schema]);
    const sessions = new session.Sessions(db, { Origin: "https://app.test" });
    const tokens = new AgentTokens(db, { Sessions: sessions });
    const ada1 = tokens.mint({ Subject: ada, Name: "one", Access: ToolRead });
    const ada2 = tokens.mint({ Subject: ada, Name: "two", Access: ToolWrite });
    const bob = tokens.mint({ Subject: "bob@example.com", Name: "one", Access: ToolRead });
    sessions.RevokeAll(ada);
    assert.equal(await tokens.verify(ada1.Token), undefined);
    assert.equal(await tokens.verify(ada2.Token), undefined);
    assert.deepEqual(tokens.list(ada), []);
    assert.ok((await tokens.verify(bob.Token)) !== undefined, "another person's token lives");
    assert.equal(count(db, "agent_tokens", "revoked_at IS NOT NULL"), 2, "rows kept, marked, for the audit trail");
  });

  it("refuses a token whose person Authorize now refuses, and takes it again once admitted", async (t) => {
    const admitted = new Set([ada]);
    const { tokens } = tokenStore(t, { Authorize: async (address) => admitted.has(address) });
    const { Token } = tokens.mint({ Subject: ada, Name: "bot", Access: ToolRead });
    assert.equal((await tokens.verify(Token))?.Subject, ada);
    admitted.delete(ada);
    assert.equal(await tokens.verify(Token), undefined);
    const { port } = await startHandler(t, {
      Mux: async (req, res) => {
        const bearer = await verifyBearer(req, tokens);
        res.end(typeof bearer === "string" ? bearer : bearer.Name);
      },
    });
    assert.equal((await fetchHTTP(port, "/", { headers: { Authorization: `Bearer ${Token}` } })).body, "invalid");
    admitted.add(ada);
    assert.equal((await fetchHTTP(port, "/", { headers: { Authorization: `Bearer ${Token}` } })).body, "bot");
  });
});

describe("AgentTokens OAuth grants", () => {
  const client = { ID: "https://client.example/c.json", Name: "Claude", Host: "client.example" };

  it("lists a grant with its client; the grant itself is never accepted as a bearer token", async (t) => {
    const { tokens } = tokenStore(t);
    const { Token, Info } = tokens.mint({ Subject: ada, Name: "claude", Access: ToolRead, Client: client });
    assert.deepEqual(Info.Client, client);
    assert.deepEqual(tokens.list(ada)[0]?.Client, client);
    assert.equal(await tokens.verify(Token), undefined);
    assert.equal(await tokens.verify(Token, "http://app.test/mcp"), undefined);
  });

  it("issues access tokens only of a live grant, accepted only at their resource", async (t) => {
    const { tokens, clock } = tokenStore(t);
    const pasted = tokens.mint({ Subject: ada, Name: "pasted", Access: ToolRead });
    assert.equal(tokens.issueAccessToken(pasted.Info.ID, "http://app.test/mcp", 1000), undefined, "a pasted token is no grant");
    const grant = tokens.mint({ Subject: ada, Name: "claude", Access: ToolWrite, Client: client }).Info;
    const access = tokens.issueAccessToken(grant.ID, "http://app.test/mcp", 1000);
    assert.ok(access !== undefined);
    assert.equal((await tokens.verify(access.Token, "http://app.test/mcp"))?.Name, "claude");
    assert.equal(await tokens.verify(access.Token, "http://app.test/api/tools"), undefined);
    assert.equal(await tokens.verify(access.Token), undefined, "an endpoint naming no resource takes no access token");
    assert.equal((await tokens.verify(pasted.Token, "http://app.test/api/tools"))?.Name, "pasted", "pasted tokens work anywhere");
    clock.advance(1000);
    assert.equal(await tokens.verify(access.Token, "http://app.test/mcp"), undefined, "expired");
    tokens.revoke(ada, grant.ID);
    assert.equal(tokens.issueAccessToken(grant.ID, "http://app.test/mcp", 1000), undefined, "a revoked grant");
  });

  it("refuses a grant client without an id, name or host", async (t) => {
    const { tokens } = tokenStore(t);
    assert.throws(
      () => tokens.mint({ Subject: ada, Name: "claude", Access: ToolRead, Client: { ...client, Host: "" } }),
      (err: unknown) => isAgentError(err) && err.code === "ERR_AGENT_INVALID_TOKEN",
    );
  });
});
