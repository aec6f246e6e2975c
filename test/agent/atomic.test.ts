/*
 * A tool call and its audit event, with a failure injected between them: a
 * SQLite trigger that RAISEs on the events insert, as a full disk would
 * refuse it. Whatever fails, the database is consistent: no effect without
 * its event, no event without its effect. `counter_add` (tools-app.ts)
 * changes state outside SQLite, as starting a job does, so its call is
 * recorded first ("started") and its outcome after.
 */
import { describe, it, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { applySchema, mergeSchemas, type DB } from "../../lib/db/index.ts";
import * as agent from "../../lib/agent/index.ts";
import { AgentTokens, Approvals } from "../../lib/agent/index.ts";
import * as events from "../../lib/events/index.ts";
import { EventStore, auditStream } from "../../lib/events/index.ts";
import * as session from "../../lib/session/index.ts";
import { open } from "../_support/db.ts";
import { count } from "../_support/signin-app.ts";
import { startToolsApp, type ToolsApp } from "../_support/tools-app.ts";

const ADA = "ada@example.com";

/** Makes every events insert matching `when` fail, as a full disk would. */
function refuseEvents(db: DB, when: string): () => void {
  db.exec(
    `CREATE TEMP TRIGGER refuse_events BEFORE INSERT ON main.events WHEN ${when} BEGIN SELECT RAISE(ABORT, 'injected: database or disk is full'); END`,
  );
  return () => db.exec("DROP TRIGGER temp.refuse_events");
}

function audit(app: ToolsApp): string[] {
  return app.events.read(auditStream(ADA)).map((e) => `${e.Actor} ${String(e.Data["tool"])} ${String(e.Data["outcome"])}`);
}

/** The status of a call (a 500 answers plain text, which `app.call` would not parse). */
async function status(app: ToolsApp, token: string | undefined, by: number): Promise<number> {
  const res = await app.request("POST", "/api/tools/counter_add", {
    ...(token === undefined && { jar: app.human }),
    headers: { "Content-Type": "application/json", ...(token !== undefined && { Authorization: `Bearer ${token}` }) },
    body: JSON.stringify({ by }),
  });
  return res.status;
}

async function approved(app: ToolsApp, token: string, by: number): Promise<string> {
  const url = String((await app.call(token, "counter_add", { by })).json["approval_url"]);
  assert.equal(JSON.parse((await app.approve(url)).body).ok, true);
  return url.split("/").pop() ?? "";
}

describe("ToolInvoker: a call and its event, atomically", () => {
  it("runs nothing and spends no approval when the call's event cannot be appended", async (t) => {
    const app = await startToolsApp(t);
    const token = app.mint("write", "claude");
    const approval = await approved(app, token, 2);
    const allow = refuseEvents(app.db, "NEW.type = 'tool.call'");
    assert.equal(await status(app, token, 2), 500);
    assert.equal(await status(app, undefined, 5), 500);
    assert.deepEqual(app.runs, [], "no effect without its event");
    allow();
    assert.equal(count(app.db, "agent_approvals", "id = ? AND status = 'approved'", approval), 1, "the approval is still there to spend");
    assert.equal((await app.call(token, "counter_add", { by: 2 })).status, 200);
    assert.deepEqual(app.runs, [2]);
  });

  it("leaves no approval request when its event cannot be appended", async (t) => {
    const app = await startToolsApp(t);
    const token = app.mint("write", "claude");
    const allow = refuseEvents(app.db, "NEW.type = 'tool.call'");
    assert.equal(await status(app, token, 1), 500);
    allow();
    assert.equal(count(app.db, "agent_approvals"), 0, "no request the person could approve without its event");
    assert.deepEqual(audit(app), []);
  });

  it("records a write call before it runs, so an effect outside SQLite is attributed even when its outcome cannot be", async (t) => {
    const app = await startToolsApp(t);
    const token = app.mint("write", "claude");
    const approval = await approved(app, token, 3);
    const allow = refuseEvents(app.db, "NEW.type = 'tool.call' AND json_extract(NEW.data, '$.outcome') <> 'started'");
    const ran = await app.call(token, "counter_add", { by: 3 });
    allow();
    // The effect happened and was recorded before it did: the caller is told the truth, not a 500.
    assert.equal(ran.status, 200);
    assert.deepEqual(app.runs, [3]);
    assert.deepEqual(audit(app), ["agent:claude counter_add approval_required", "agent:claude counter_add started"]);
    const started = app.events.read(auditStream(ADA))[1];
    assert.equal(started?.Data["approval"], approval);
    assert.equal(count(app.db, "agent_approvals", "id = ? AND status = 'spent'", approval), 1);
    assert.equal(app.log.lines().filter((l) => l["msg"] === "tool call outcome not recorded").length, 1);
  });

  it("appends the outcome after the run, naming the event that recorded its start", async (t) => {
    const app = await startToolsApp(t);
    const token = app.mint("write", "claude");
    await approved(app, token, 4);
    assert.equal((await app.call(token, "counter_add", { by: 4 })).status, 200);
    assert.deepEqual(audit(app), [
      "agent:claude counter_add approval_required",
      "agent:claude counter_add started",
      "agent:claude counter_add ok",
    ]);
    const [, started, done] = app.events.read(auditStream(ADA));
    assert.equal(done?.Data["started"], started?.Seq);
    assert.equal(done?.Data["args_hash"], started?.Data["args_hash"]);
  });
});

describe("AgentTokens and Approvals: a change and its audit event, atomically", () => {
  function stores(t: TestContext): { db: DB; events: EventStore; tokens: AgentTokens } {
    const db = open(t, ":memory:");
    applySchema(db, mergeSchemas(session.Schema, events.Schema, agent.Schema));
    const store = new EventStore(db);
    return { db, events: store, tokens: new AgentTokens(db, { Events: store }) };
  }
  const types = (store: EventStore): string[] => store.read(auditStream(ADA)).map((e) => `${e.Actor} ${e.Type}`);

  it("mints and revokes a token with its event, or not at all", (t) => {
    const { db, events: store, tokens } = stores(t);
    let allow = refuseEvents(db, "NEW.type LIKE 'agent.%'");
    assert.throws(() => tokens.mint({ Subject: ADA, Name: "ghost", Access: "write" }), /injected/);
    allow();
    assert.equal(count(db, "agent_tokens", "subject = ?", ADA), 0, "no token without its event");
    const { Info } = tokens.mint({ Subject: ADA, Name: "claude", Access: "write" });
    allow = refuseEvents(db, "NEW.type LIKE 'agent.%'");
    assert.throws(() => tokens.revoke(ADA, Info.ID), /injected/);
    allow();
    assert.equal(count(db, "agent_tokens", "id = ? AND revoked_at IS NULL", Info.ID), 1, "still live: no revocation without its event");
    assert.equal(tokens.revoke(ADA, Info.ID), true);
    assert.equal(tokens.revoke(ADA, Info.ID), false, "a second revoke changes nothing and records nothing");
    assert.deepEqual(types(store), ["human agent.token_minted", "human agent.token_revoked"]);
    assert.deepEqual(
      store.read(auditStream(ADA)).map((e) => e.Data),
      [{ token: Info.ID, name: "claude", access: "write" }, { token: Info.ID }],
      "the token's id, never the token",
    );
  });
});

describe("Approvals: a decision and its audit event, atomically", () => {
  it("decides a request with its event, or not at all", (t) => {
    const db = open(t, ":memory:");
    applySchema(db, mergeSchemas(session.Schema, events.Schema, agent.Schema));
    const store = new EventStore(db);
    const approvals = new Approvals(db, { Events: store });
    const { Info } = new AgentTokens(db).mint({ Subject: ADA, Name: "claude", Access: "write" });
    const binding = { Subject: ADA, TokenID: Info.ID, Tool: "counter_add", ArgsHash: "h1" };
    const first = approvals.request(binding, { by: 2 });
    const second = approvals.request({ ...binding, ArgsHash: "h2" }, { by: 3 });
    const allow = refuseEvents(db, "NEW.type LIKE 'agent.%'");
    assert.throws(() => approvals.decide(first.ID, ADA, "approve"), /injected/);
    assert.throws(() => approvals.decide(second.ID, ADA, "decline"), /injected/);
    allow();
    assert.equal(count(db, "agent_approvals", "status = 'pending'"), 2, "no decision without its event");
    assert.equal(approvals.decide(first.ID, ADA, "approve").ok, true);
    assert.equal(approvals.decide(second.ID, ADA, "decline").ok, true);
    assert.equal(approvals.decide(second.ID, ADA, "approve").ok, false, "a second decision changes nothing and records nothing");
    assert.deepEqual(
      store.read(auditStream(ADA)).map((e) => [`${e.Actor} ${e.Type}`, e.Data]),
      [
        ["human agent.call_approved", { approval: first.ID, tool: "counter_add", args_hash: "h1" }],
        ["human agent.call_declined", { approval: second.ID, tool: "counter_add", args_hash: "h2" }],
      ],
    );
  });
});
