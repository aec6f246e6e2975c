/*
 * Tools over HTTP against a real stack (test/_support/tools-app.ts). Agents
 * call with `Authorization: Bearer`; the person approves over HTTP with
 * their session.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { auditStream } from "../../lib/events/index.ts";
import { MAX_PENDING_APPROVALS } from "../../lib/agent/approvals.ts";
import { startToolsApp, type ToolsApp } from "../_support/tools-app.ts";

const ADA = "ada@example.com";

function auditActors(app: ToolsApp): string[] {
  return app.events.read(auditStream(ADA)).map((e) => `${e.Actor} ${String(e.Data["tool"])} ${String(e.Data["outcome"])}`);
}

describe("GET /api/whoami", () => {
  it("answers the human with a session and the agent with a bearer token, both for the minting person", async (t) => {
    const app = await startToolsApp(t);
    const human = await app.request("GET", "/api/whoami", { jar: app.human });
    assert.deepEqual([human.status, JSON.parse(human.body)], [200, { actor: "human", subject: ADA }]);
    const token = app.mint("read", "claude");
    const bot = await app.request("GET", "/api/whoami", { headers: { Authorization: `Bearer ${token}` } });
    assert.deepEqual([bot.status, JSON.parse(bot.body)], [200, { actor: "agent:claude", subject: ADA }]);
    // A bearer token wins over a session cookie sent along: the caller is the agent.
    const both = await app.request("GET", "/api/whoami", { jar: app.human, headers: { Authorization: `Bearer ${token}` } });
    assert.equal(JSON.parse(both.body).actor, "agent:claude");
  });

  it("refuses malformed, unknown and revoked tokens with one identical 401 and WWW-Authenticate", async (t) => {
    const app = await startToolsApp(t);
    const token = app.mint("write");
    const id = app.tokens.list(ADA)[0]?.ID ?? "";
    assert.equal((await app.request("GET", "/api/whoami", { headers: { Authorization: `Bearer ${token}` } })).status, 200);
    assert.equal(app.tokens.revoke(ADA, id), true);
    const answers = [];
    for (const authorization of [
      `Bearer ${token}`,
      `Bearer ${"A".repeat(43)}`,
      "Bearer not a token",
      "Bearer",
      "Basic YTpi",
      `bearer ${token}`,
    ]) {
      const res = await app.request("GET", "/api/whoami", { headers: { Authorization: authorization } });
      answers.push({ status: res.status, challenge: res.headers["www-authenticate"], body: res.body });
    }
    for (const answer of answers) {
      assert.deepEqual(answer, { status: 401, challenge: 'Bearer realm="api", error="invalid_token"', body: answers[0]?.body });
    }
    const call = await app.call(token, "counter_get", {});
    assert.equal(call.status, 401);
    assert.equal(call.headers["www-authenticate"], 'Bearer realm="api", error="invalid_token"');
  });

  it("accepts a token only in the Authorization header: not from a cookie, not from the query", async (t) => {
    const app = await startToolsApp(t);
    const token = app.mint("read");
    for (const options of [{ headers: { Cookie: `framework_session=${token}` } }, { headers: { Cookie: `token=${token}` } }]) {
      const res = await app.request("GET", "/api/whoami", options);
      assert.equal(res.status, 401);
      assert.equal(res.headers["www-authenticate"], 'Bearer realm="api"');
    }
    assert.equal((await app.request("GET", `/api/whoami?access_token=${token}`)).status, 401);
  });
});

describe("GET /api/tools", () => {
  it("lists every runnable tool to a write token and only read tools to a read token", async (t) => {
    const app = await startToolsApp(t);
    const list = async (token: string): Promise<unknown> =>
      JSON.parse((await app.request("GET", "/api/tools", { headers: { Authorization: `Bearer ${token}` } })).body);
    assert.deepEqual(await list(app.mint("write")), {
      tools: [
        {
          name: "counter_add",
          description: "Adds to the counter",
          access: "write",
          confirm: "Add to your counter?",
          arguments: [{ name: "by", type: "number", required: true, description: "amount" }],
        },
        { name: "counter_get", description: "Reads the counter", access: "read", arguments: [] },
        {
          name: "explode",
          description: "Fails",
          access: "read",
          arguments: [{ name: "secret", type: "string", required: false, description: "kept out of logs" }],
        },
      ],
    });
    const read = (await list(app.mint("read"))) as { tools: { name: string }[] };
    assert.deepEqual(
      read.tools.map((x) => x.name),
      ["counter_get", "explode"],
    );
  });
});

describe("POST /api/tools/{name}", () => {
  it("answers 400 with the field and the reason, 404 for an unknown tool, 415 for a body that is not JSON", async (t) => {
    const app = await startToolsApp(t);
    const token = app.mint("write");
    const rows: { args: unknown; field: string; reason: string }[] = [
      { args: {}, field: "by", reason: "is required" },
      { args: { by: "2" }, field: "by", reason: "must be a number" },
      { args: { by: 1, admin: true }, field: "admin", reason: "is not an argument of this tool" },
      { args: [1], field: "", reason: "arguments must be a JSON object" },
    ];
    for (const row of rows) {
      const res = await app.call(token, "counter_add", row.args);
      assert.equal(res.status, 400);
      assert.equal(res.json["field"], row.field);
      assert.equal(res.json["reason"], row.reason);
      assert.match(String(res.json["error"]), /^invalid arguments: /);
    }
    const unknown = await app.call(token, "no_such_tool", {});
    assert.deepEqual([unknown.status, unknown.json], [404, { error: "unknown tool" }]);
    const text = await app.request("POST", "/api/tools/counter_get", {
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "text/plain" },
      body: "{}",
    });
    assert.equal(text.status, 415);
    assert.deepEqual(app.runs, []);
  });

  it("refuses a write tool to a read-only token with 403, running nothing", async (t) => {
    const app = await startToolsApp(t);
    const res = await app.call(app.mint("read"), "counter_add", { by: 1 });
    assert.equal(res.status, 403);
    assert.match(String(res.json["error"]), /^forbidden: /);
    assert.deepEqual(app.runs, []);
    assert.equal((await app.call(app.mint("read", "reader-2"), "counter_get", {})).status, 200);
  });

  it("runs a human's own write call at once: the request their session made is their confirmation", async (t) => {
    const app = await startToolsApp(t);
    const res = await app.call(undefined, "counter_add", { by: 3 }, app.human);
    assert.deepEqual([res.status, res.json], [200, { result: { subject: ADA, total: 3 } }]);
    assert.deepEqual(app.runs, [3]);
  });

  it("limits each agent token's calls, checked before the body is read, and never a person's own session", async (t) => {
    const app = await startToolsApp(t);
    const token = app.mint("read");
    for (let i = 0; i < 20; i++) assert.equal((await app.call(token, "counter_get", {})).status, 200);
    const refused = await app.request("POST", "/api/tools/counter_get", {
      headers: { "Content-Type": "text/plain", Authorization: `Bearer ${token}` },
      body: "not even JSON",
    });
    assert.deepEqual([refused.status, refused.headers["retry-after"]], [429, "1"], "refused before the body's type is looked at");
    for (let i = 0; i < 25; i++) assert.equal((await app.call(undefined, "counter_add", { by: 1 }, app.human)).status, 200);
  });

  it("holds an agent's write call for approval, runs the approved call exactly once, and never runs changed arguments", async (t) => {
    const app = await startToolsApp(t);
    const token = app.mint("write", "claude");
    // confirmed: true is the agent's own claim; it means nothing.
    const held = await app.call(token, "counter_add", { by: 2, confirmed: true });
    assert.equal(held.status, 202);
    assert.equal(held.json["status"], "approval_required");
    const url = String(held.json["approval_url"]);
    assert.match(url, /^http:\/\/app\.test\/approvals\/[A-Za-z0-9_-]{22}$/);
    assert.equal(held.headers.location, url);
    assert.deepEqual(app.runs, []);
    const again = await app.call(token, "counter_add", { by: 2 });
    assert.equal(again.json["approval_url"], url, "the same call waits on the same request");

    const approved = await app.approve(url);
    assert.equal(approved.status, 200);
    assert.equal(JSON.parse(approved.body).ok, true);
    const changed = await app.call(token, "counter_add", { by: 200 });
    assert.equal(changed.status, 202, "different arguments find no approval");
    assert.notEqual(changed.json["approval_url"], url);
    assert.deepEqual(app.runs, []);
    const ran = await app.call(token, "counter_add", { by: 2 });
    assert.deepEqual([ran.status, ran.json], [200, { result: { subject: ADA, total: 2 } }]);
    const repeat = await app.call(token, "counter_add", { by: 2 });
    assert.equal(repeat.status, 202, "the approval is spent");
    assert.deepEqual(app.runs, [2]);

    const other = app.mint("write", "other-bot");
    const stolen = await app.call(other, "counter_add", { by: 2 });
    assert.equal(stolen.status, 202, "an approval is bound to the token it was given for");
    assert.deepEqual(app.runs, [2]);
  });

  it("never runs a declined call, nor an approval older than 5 minutes", async (t) => {
    const app = await startToolsApp(t);
    const token = app.mint("write");
    const declined = String((await app.call(token, "counter_add", { by: 1 })).json["approval_url"]);
    assert.equal(JSON.parse((await app.approve(declined, "decline")).body).ok, true);
    assert.equal((await app.call(token, "counter_add", { by: 1 })).status, 202);
    const url = String((await app.call(token, "counter_add", { by: 1 })).json["approval_url"]);
    assert.notEqual(url, declined);
    assert.equal(JSON.parse((await app.approve(url)).body).ok, true);
    app.clock.advance(5 * 60 * 1000);
    assert.equal((await app.call(token, "counter_add", { by: 1 })).status, 202);
    assert.deepEqual(app.runs, []);
    const bad = await app.approve(url, "yes please");
    assert.equal(bad.status, 400);
    assert.match(bad.body, /decision must be "approve" or "decline"/);
  });

  it("appends every call to the person's audit stream with its actor, tool, arguments hash, approval and outcome", async (t) => {
    const app = await startToolsApp(t);
    const token = app.mint("write", "claude");
    const reader = app.mint("read", "reader");
    await app.call(undefined, "counter_add", { by: 1 }, app.human);
    const url = String((await app.call(token, "counter_add", { by: 2 })).json["approval_url"]);
    await app.approve(url);
    await app.call(token, "counter_add", { by: 2 });
    await app.call(reader, "counter_add", { by: 2 });
    await app.call(reader, "counter_get", {});
    await app.call(reader, "nope", {});
    await app.call(reader, "counter_get", { x: 1 });
    assert.deepEqual(auditActors(app), [
      "human counter_add started",
      "human counter_add ok",
      "agent:claude counter_add approval_required",
      "agent:claude counter_add started",
      "agent:claude counter_add ok",
      "agent:reader counter_add forbidden",
      "agent:reader counter_get ok",
      "agent:reader nope unknown_tool",
      "agent:reader counter_get invalid",
    ]);
    const stream = app.events.read(auditStream(ADA));
    const approvalID = url.split("/").pop();
    assert.equal(stream[2]?.Data["approval"], approvalID);
    assert.equal(stream[3]?.Data["approval"], approvalID);
    assert.equal(stream[4]?.Data["approval"], approvalID);
    assert.equal(stream[4]?.Data["args_hash"], stream[2]?.Data["args_hash"]);
    assert.match(String(stream[4]?.Data["args_hash"]), /^[0-9a-f]{64}$/);
    assert.equal(stream[0]?.Data["approval"], null);
    assert.ok(stream.every((e) => e.Type === "tool.call" && e.Subject === ADA));
  });

  it("refuses an agent's write call past MAX_PENDING_APPROVALS pending requests with 429, audited as refused", async (t) => {
    const app = await startToolsApp(t);
    const token = app.mint("write", "claude");
    for (let by = 1; by <= MAX_PENDING_APPROVALS; by++) assert.equal((await app.call(token, "counter_add", { by })).status, 202);
    app.clock.advance(1000); // past the call rate's burst of 20 (rate.ts), which would refuse first
    const refused = await app.call(token, "counter_add", { by: MAX_PENDING_APPROVALS + 1 });
    assert.equal(refused.status, 429);
    assert.match(String(refused.json["error"]), /already has 20 requests awaiting the person/);
    assert.equal(auditActors(app).at(-1), "agent:claude counter_add refused");
    assert.deepEqual(app.runs, []);
  });

  it("records the agent token's public id, so a revoked token and a re-minted one of the same name stay apart", async (t) => {
    const app = await startToolsApp(t);
    const first = app.mint("read", "claude");
    const firstID = app.tokens.list(ADA)[0]?.ID ?? "";
    await app.call(first, "counter_get", {});
    assert.equal(app.tokens.revoke(ADA, firstID), true);
    const second = app.mint("read", "claude");
    const secondID = app.tokens.list(ADA)[0]?.ID ?? "";
    await app.call(second, "counter_get", {});
    await app.call(undefined, "counter_get", {}, app.human);
    const stream = app.events.read(auditStream(ADA));
    assert.deepEqual(
      stream.map((e) => [e.Actor, e.Data["token_id"]]),
      [
        ["agent:claude", firstID],
        ["agent:claude", secondID],
        ["human", undefined],
      ],
    );
    assert.notEqual(firstID, secondID);
    // The id is the listing's row id: neither secret appears in an event.
    assert.ok(!JSON.stringify(stream).includes(first) && !JSON.stringify(stream).includes(second));
  });

  it("logs a failing tool with a reference and never a token or an argument", async (t) => {
    const app = await startToolsApp(t);
    const token = app.mint("write", "claude");
    const failed = await app.call(token, "explode", { secret: "hunter2-argument" });
    assert.equal(failed.status, 500);
    assert.match(String(failed.json["ref"]), /^[a-z2-7]{6}$/);
    const url = String((await app.call(token, "counter_add", { by: 5 })).json["approval_url"]);
    await app.approve(url);
    await app.call(token, "counter_add", { by: 5 });
    await app.request("GET", "/api/whoami", { headers: { Authorization: `Bearer ${token}x` } });
    const logged = JSON.stringify(app.log.lines());
    assert.ok(logged.includes(String(failed.json["ref"])), "the failure is logged under its reference");
    assert.ok(!logged.includes(token), "no token in the logs");
    assert.ok(!logged.includes("hunter2-argument"), "no argument in the logs");
  });
});
