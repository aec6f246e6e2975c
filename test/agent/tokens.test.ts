import { describe, it, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { applySchema, type DB } from "../../lib/db/index.ts";
import * as session from "../../lib/session/index.ts";
import { TOKEN_PATTERN } from "../../lib/session/index.ts";
import { AgentTokens, Schema, ToolRead, ToolWrite, isAgentError, verifyBearer } from "../../lib/agent/index.ts";
import type { MintInput } from "../../lib/agent/tokens.ts";
import { fetchHTTP, startHandler } from "../_support/http.ts";
import { open } from "../_support/db.ts";
import { FakeClock } from "../_support/clock.ts";
import { count } from "../_support/signin-app.ts";

function tokenStore(t: TestContext): { db: DB; tokens: AgentTokens; clock: FakeClock } {
  const db = open(t, ":memory:");
  applySchema(db, [...session.Schema, ...Schema]);
  const clock = new FakeClock();
  return { db, tokens: new AgentTokens(db, { Clock: clock }), clock };
}

const ada = "ada@example.com";

describe("AgentTokens.mint()", () => {
  it("returns the token once and stores only its SHA-256", (t) => {
    const { db, tokens, clock } = tokenStore(t);
    const { Token, Info } = tokens.mint({ Subject: ada, Name: "claude", Access: ToolWrite });
    assert.match(Token, TOKEN_PATTERN);
    assert.deepEqual({ ...Info }, { ID: Info.ID, Name: "claude", Access: "write", CreatedAt: clock.now(), LastUsedAt: undefined });
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
    { name: "an unknown access", input: { Subject: ada, Name: "bot", Access: "admin" }, message: /access must be "read" or "write"/ },
    { name: "no subject", input: { Subject: "", Name: "bot", Access: ToolRead }, message: /no subject/ },
  ];
  for (const row of bad) {
    it(`refuses ${row.name} with 400 and a message, storing nothing`, (t) => {
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

  it("refuses a second live token of the same name with 409, and allows it again once revoked", (t) => {
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
  it("grants the minting person's subject and access, and records the last use", (t) => {
    const { tokens, clock } = tokenStore(t);
    const { Token, Info } = tokens.mint({ Subject: ada, Name: "bot", Access: ToolRead });
    clock.advance(60_000);
    assert.deepEqual({ ...tokens.verify(Token) }, { TokenID: Info.ID, Subject: ada, Name: "bot", Access: "read" });
    assert.deepEqual(tokens.list(ada)[0]?.LastUsedAt, clock.now());
  });

  it("answers malformed, unknown and revoked tokens alike", (t) => {
    const { tokens } = tokenStore(t);
    const { Token, Info } = tokens.mint({ Subject: ada, Name: "bot", Access: ToolWrite });
    assert.equal(tokens.revoke("bob@example.com", Info.ID), false, "another person's id revokes nothing");
    assert.ok(tokens.verify(Token) !== undefined);
    assert.equal(tokens.revoke(ada, Info.ID), true);
    assert.equal(tokens.revoke(ada, Info.ID), false);
    for (const presented of [Token, session.NewToken(), "short", "", Token + "x", "a".repeat(42) + "!"]) {
      assert.equal(tokens.verify(presented), undefined, presented);
    }
    assert.deepEqual(tokens.list(ada), []);
  });
});

describe("AgentTokens.list()", () => {
  it("lists a person's live tokens, newest first, with name, access, creation and last use", (t) => {
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
  it("tells no Authorization, a refused one (malformed, unknown, revoked, another scheme) and a live token's grant", async (t) => {
    const { tokens } = tokenStore(t);
    const { Token, Info } = tokens.mint({ Subject: ada, Name: "claude", Access: ToolRead });
    const revoked = tokens.mint({ Subject: ada, Name: "old", Access: ToolRead });
    tokens.revoke(ada, revoked.Info.ID);
    const { port } = await startHandler(t, {
      Mux: (req, res) => {
        const bearer = verifyBearer(req, tokens);
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
