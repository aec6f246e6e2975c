/*
 * Standing approvals on the demo as a black box (`node dist/examples/demo/main.js`, real SMTP, the official MCP SDK
 * client): "approve calls like this" from an approval page lets exactly N matching calls run over POST /api/tools and
 * MCP, each audited with the standing approval's id; calls outside its bounds, after its revocation or its last call
 * ask as before; an agent's token on the creation route is refused with nothing stored; the first one of a token mails
 * a notice, the second none.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { OpenDB } from "../../lib/db/index.ts";
import { EventStore } from "../../lib/events/index.ts";
import { mintAgentToken, signInOverHTTP, startDemo, type Demo } from "../_support/demo.ts";
import { sendRequest, type CookieJar } from "../_support/http-client.ts";
import { connectMCP } from "../_support/mcp-client.ts";

const NOTICE_SUBJECT = "An agent may now act without asking you each time";

describe("Standing approvals on the demo", () => {
  let demo: Demo;
  before(async () => {
    demo = await startDemo({ JOB_STEP_MS: "50" });
  });
  after(async () => demo?.close());

  const call = async (token: string, tool: string, args: Record<string, unknown>) => {
    const r = await sendRequest(
      demo.origin,
      "POST",
      `/api/tools/${tool}`,
      { headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" }, body: JSON.stringify(args) },
      demo.origin,
    );
    return { status: r.status, json: JSON.parse(r.body) as Record<string, unknown> };
  };
  const approvalID = (answer: { json: Record<string, unknown> }): string => {
    const url = String(answer.json["approval_url"]);
    return url.slice(url.lastIndexOf("/") + 1);
  };
  const decide = (jar: CookieJar, id: string, form: Record<string, string>) =>
    sendRequest(demo.origin, "POST", `/account/approvals/${id}`, { jar, form }, demo.origin);
  const listed = async (jar: CookieJar) => {
    const page = await sendRequest(demo.origin, "GET", "/account/agents", { jar }, demo.origin);
    return [...page.body.matchAll(/data-standing-id="([^"]+)" data-standing-remaining="(\d+)" data-standing-expires="([^"]+)"/g)].map(
      (m) => ({ id: m[1] ?? "", remaining: Number(m[2]), expires: m[3] ?? "" }),
    );
  };
  const notices = (to: string) => demo.smtp.messages.filter((m) => m.to.includes(to) && m.parsed.subject === NOTICE_SUBJECT).length;
  // A write the person approves once: the record it creates.
  const created = async (jar: CookieJar, token: string, label: string): Promise<string> => {
    const args = { label, amount: "1.00" };
    await decide(jar, approvalID(await call(token, "expenses_create", args)), { decision: "approve" });
    const made = await call(token, "expenses_create", args);
    assert.equal(made.status, 200);
    return String((made.json["result"] as { id: string }).id);
  };
  const version = async (token: string, id: string): Promise<number> =>
    Number(((await call(token, "expenses_read", { id })).json["result"] as { version: number }).version);

  it("lets exactly N matching calls run, each audited with its id; another record or field asks; the notice mails once", async () => {
    const who = "ada-standing@example.com";
    const jar = await signInOverHTTP(demo, who);
    const token = await mintAgentToken(demo, jar, "standing", "write");
    const [a, b] = [await created(jar, token, "Taxi"), await created(jar, token, "Train")];
    let v = await version(token, a);
    const held = await call(token, "expenses_update", { id: a, version: v, label: "Taxi 1" });
    assert.equal(held.status, 202);
    const page = await sendRequest(demo.origin, "GET", `/account/approvals/${approvalID(held)}`, { jar }, demo.origin);
    assert.match(page.body, /data-standing-form/);
    assert.match(page.body, /name="calls"[^>]*value="10"/, "the form offers the default of 10 calls");
    assert.match(page.body, /name="hours"[^>]*value="1"/, "and 1 hour");
    const before = notices(who);
    const made = await decide(jar, approvalID(held), { decision: "standing", calls: "3", hours: "1", same_record: "1", same_fields: "1" });
    assert.equal(made.status, 303);
    assert.equal(made.location, "/account/agents");
    assert.equal(notices(who), before + 1, "the token's first standing approval mails its person");
    const [standing] = await listed(jar);
    assert.equal(standing?.remaining, 3);
    assert.ok(Date.parse(standing?.expires ?? "") > Date.now());
    // The waiting call is one of the three: its repeat runs under the standing approval.
    for (const label of ["Taxi 1", "Taxi 2", "Taxi 3"]) {
      const ran = await call(token, "expenses_update", { id: a, version: v, label });
      assert.equal(ran.status, 200, label);
      v = Number((ran.json["result"] as { version: number }).version);
      if (label === "Taxi 1") {
        assert.equal(
          (await call(token, "expenses_update", { id: b, version: await version(token, b), label: "x" })).status,
          202,
          "another record asks",
        );
        assert.equal((await call(token, "expenses_update", { id: a, version: v, amount: "9.00" })).status, 202, "another field asks");
      }
    }
    assert.equal((await call(token, "expenses_update", { id: a, version: v, label: "Taxi 4" })).status, 202, "the fourth asks");
    assert.deepEqual(await listed(jar), [], "a spent standing approval leaves the list");
    const db = OpenDB(join(demo.stateDir, "demo.db"));
    try {
      const runs = new EventStore(db)
        .latestHistory(who, 100, "agent")
        .filter((e) => e.Type === "tool.call" && e.Data["standing"] !== undefined);
      assert.equal(runs.length, 6, "three runs, a started and an outcome event each");
      assert.ok(runs.every((e) => e.Data["standing"] === standing?.id && e.Data["approval"] === null));
      assert.equal(runs.filter((e) => e.Data["outcome"] === "ok").length, 3);
    } finally {
      db.close();
    }
    // A second standing approval for the same token mails nothing.
    const again = await call(token, "start_job", { kind: "ok" });
    assert.equal((await decide(jar, approvalID(again), { decision: "standing", calls: "2", hours: "1" })).status, 303);
    assert.equal(notices(who), before + 1);
  });

  it("names the record, its fields and its team in words, on the approval page's form and beside the token", async () => {
    const jar = await signInOverHTTP(demo, "fa-standing@example.com");
    const token = await mintAgentToken(demo, jar, "names", "write");
    const a = await created(jar, token, "Taxi to the airport");
    const held = await call(token, "expenses_update", { id: a, version: await version(token, a), label: "Taxi 1", amount: "2.00" });
    const page = await sendRequest(demo.origin, "GET", `/account/approvals/${approvalID(held)}`, { jar }, demo.origin);
    assert.match(
      page.body,
      /name="same_record"[^>]*> Only this record: <strong data-record-title dir="auto">Taxi to the airport<\/strong>/,
    );
    assert.match(
      page.body,
      /name="same_fields"[^>]*> Only the fields this call changes: <span dir="auto">Label<\/span>, <span dir="auto">Amount<\/span>/,
    );
    const form = { decision: "standing", calls: "3", hours: "1", same_record: "1", same_fields: "1" };
    assert.equal((await decide(jar, approvalID(held), form)).status, 303);
    // A team's task: the team every matching call must name, by its name.
    const made = await sendRequest(demo.origin, "POST", "/teams", { jar, form: { name: "Workshop" } }, demo.origin);
    const team = /^\/teams\/([A-Za-z0-9_-]+)$/.exec(made.location ?? "")?.[1] ?? assert.fail(`POST /teams: ${made.status}`);
    const task = await call(token, "tasks_create", { team, title: "Sharpen the chisels" });
    assert.equal((await decide(jar, approvalID(task), { decision: "standing", calls: "2", hours: "1", same_fields: "1" })).status, 303);
    const agents = await sendRequest(demo.origin, "GET", "/account/agents", { jar }, demo.origin);
    const [expense, tasks] = [...agents.body.matchAll(/<li data-standing-id[\s\S]*?<\/li>/g)].map((m) => m[0]);
    assert.match(expense ?? "", /only record <strong data-record-title dir="auto">Taxi to the airport<\/strong>/);
    assert.match(expense ?? "", /only fields <span dir="auto">Label<\/span>, <span dir="auto">Amount<\/span>/);
    assert.ok(!(expense ?? "").includes(`>${a}<`), "never the record's id");
    assert.match(
      tasks ?? "",
      /any record · only fields <span dir="auto">Task<\/span> · only in <strong dir="auto" data-standing-context>Workshop<\/strong>/,
    );
    assert.ok(!(tasks ?? "").includes(`>${team}<`), "never the team's id");
  });

  it("runs no more than N of racing calls; revoking it makes the next call ask", async () => {
    const jar = await signInOverHTTP(demo, "bo-standing@example.com");
    const token = await mintAgentToken(demo, jar, "racer", "write");
    const held = await call(token, "start_job", { kind: "ok" });
    assert.equal((await decide(jar, approvalID(held), { decision: "standing", calls: "3", hours: "1" })).status, 303);
    const raced = await Promise.all(Array.from({ length: 6 }, () => call(token, "start_job", { kind: "ok" })));
    assert.deepEqual(raced.map((r) => r.status).sort(), [200, 200, 200, 202, 202, 202]);
    const next = await call(token, "start_job", { kind: "ok" });
    assert.equal((await decide(jar, approvalID(next), { decision: "standing", calls: "5", hours: "1" })).status, 303);
    assert.equal((await call(token, "start_job", { kind: "ok" })).status, 200);
    const [live] = await listed(jar);
    assert.equal(live?.remaining, 4);
    const revoked = await sendRequest(
      demo.origin,
      "POST",
      "/account/agents/standing/revoke",
      { jar, form: { id: live?.id ?? "" } },
      demo.origin,
    );
    assert.equal(revoked.status, 303);
    assert.equal((await call(token, "start_job", { kind: "ok" })).status, 202, "a revoked standing approval covers nothing");
  });

  it("refuses an agent's token on the creation route, and out-of-range calls or hours naming the field; nothing stored", async () => {
    const jar = await signInOverHTTP(demo, "cy-standing@example.com");
    const token = await mintAgentToken(demo, jar, "bounds", "write");
    const id = approvalID(await call(token, "start_job", { kind: "ok" }));
    const form = { decision: "standing", calls: "3", hours: "1" };
    // Never the sign-in redirect a browser gets, whatever the agent says it accepts.
    for (const accept of ["*/*", "text/html"]) {
      const headers = { Authorization: `Bearer ${token}`, Accept: accept };
      const bearer = await sendRequest(demo.origin, "POST", `/account/approvals/${id}`, { headers, form }, demo.origin);
      assert.ok(bearer.status === 401 || bearer.status === 403, `an agent's token, Accept ${accept}: ${bearer.status}`);
    }
    for (const [field, value] of [
      ["calls", "0"],
      ["calls", "21"],
      ["hours", "9"],
      ["hours", "0"],
    ] as const) {
      const refused = await decide(jar, id, { ...form, [field]: value });
      assert.equal(refused.status, 400, `${field}=${value}`);
      assert.match(refused.body, new RegExp(`${field} must be a whole number from 1 to`));
    }
    assert.deepEqual(await listed(jar), []);
    assert.equal((await decide(jar, id, { ...form, calls: "20", hours: "8" })).status, 303, "the ceilings themselves are allowed");
  });

  it("creates and revokes no standing approval whose audit event cannot be appended", async () => {
    const jar = await signInOverHTTP(demo, "ed-standing@example.com");
    const token = await mintAgentToken(demo, jar, "atomic", "write");
    const db = OpenDB(join(demo.stateDir, "demo.db"));
    // As a full disk would refuse it, from a second connection (test/agent/demo-atomic.test.ts).
    const refuse = () =>
      db.exec(
        "CREATE TRIGGER refuse_standing BEFORE INSERT ON events WHEN NEW.type LIKE 'agent.standing%' BEGIN SELECT RAISE(ABORT, 'injected'); END",
      );
    try {
      const id = approvalID(await call(token, "start_job", { kind: "ok" }));
      refuse();
      assert.equal((await decide(jar, id, { decision: "standing", calls: "2", hours: "1" })).status, 500);
      db.exec("DROP TRIGGER refuse_standing");
      assert.deepEqual(await listed(jar), [], "no standing approval");
      assert.equal((await decide(jar, id, { decision: "standing", calls: "2", hours: "1" })).status, 303, "the request still waited");
      const [live] = await listed(jar);
      refuse();
      const form = { id: live?.id ?? "" };
      assert.equal((await sendRequest(demo.origin, "POST", "/account/agents/standing/revoke", { jar, form }, demo.origin)).status, 500);
      db.exec("DROP TRIGGER refuse_standing");
      assert.equal((await listed(jar)).length, 1, "still live");
    } finally {
      db.close();
    }
  });

  it("over MCP, a covered call runs and an uncovered one still answers with the approval URL", async () => {
    const jar = await signInOverHTTP(demo, "di-standing@example.com");
    const token = await mintAgentToken(demo, jar, "mcp", "write");
    const client = await connectMCP(demo, token);
    try {
      const held = (await client.callTool({ name: "start_job", arguments: { kind: "ok" } })) as CallToolResult;
      const url = (held.structuredContent as { approval_url: string }).approval_url;
      assert.equal((await decide(jar, url.slice(url.lastIndexOf("/") + 1), { decision: "standing", calls: "2", hours: "1" })).status, 303);
      const ran = (await client.callTool({ name: "start_job", arguments: { kind: "ok" } })) as CallToolResult;
      assert.notEqual(ran.isError, true);
      const other = (await client.callTool({ name: "expenses_create", arguments: { label: "x", amount: "1.00" } })) as CallToolResult;
      assert.equal(other.isError, true);
      assert.ok((other.structuredContent as { approval_url: string }).approval_url.startsWith(`${demo.origin}/account/approvals/`));
    } finally {
      await client.close();
    }
  });
});
