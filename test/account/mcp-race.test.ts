/*
 * Writes in flight over MCP (issue 36 items 3, 4): an agent's write call
 * on /mcp (the official SDK client, as an MCP host runs it), approved by
 * its person and waiting in its tool while the person deletes the account
 * or changes address, commits nothing, leaves no outcome on record and is
 * answered as a revoked token; the next account at a deleted address
 * starts empty.
 */
import { describe, it, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { auditStream } from "../../lib/events/index.ts";
import { connectMCP } from "../_support/mcp-client.ts";
import type { CookieJar } from "../_support/http-client.ts";
import { askChange, ROUTES, scan } from "./harness.ts";
import { startRaceApp, type RaceApp } from "./race-app.ts";

const ADA = "ada@example.com";
const NEW = "ada@example.net";

/** An answer the SDK client's transport received, as it was on the wire. */
interface WireAnswer {
  status: number;
  headers: Headers;
  body: string;
}

/**
 * Ada signs in and gives an agent a write token; the agent connects over
 * MCP and calls `expenses_gated` (declaring no elicitation, so the
 * approval comes as a tool error carrying its URL), Ada approves, and the
 * agent calls again: that call runs and waits at the test's gate.
 */
async function waitingCall(t: TestContext, app: RaceApp): Promise<{ ada: CookieJar; call: Promise<unknown>; answers: WireAnswer[] }> {
  const ada = await app.signIn(ADA);
  const token = app.tokens.mint({ Subject: ADA, Name: "bot", Access: "write" }).Token;
  const answers: WireAnswer[] = [];
  const recording: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    answers.push({ status: res.status, headers: res.headers, body: await res.clone().text() });
    return res;
  };
  const client = await connectMCP({ origin: app.base }, token, {}, recording);
  t.after(() => client.close());
  const asked = (await client.callTool({ name: "expenses_gated", arguments: {} })) as CallToolResult;
  assert.equal(asked.isError, true);
  const url = (asked.structuredContent as { status: string; approval_url: string }).approval_url;
  assert.equal(app.approvals.decide(url.split("/").at(-1) ?? "", ADA, "approve").ok, true);
  const call = client.callTool({ name: "expenses_gated", arguments: {} });
  // Settled here too, so a rejection before the test awaits it is not reported as unhandled.
  call.catch(() => undefined);
  await app.gate.entered;
  return { ada, call, answers };
}

/** Asserts `call` failed as the SDK fails on a 401, and the answer on the wire was /mcp's revoked-token 401. */
async function assertRevoked(call: Promise<unknown>, answers: WireAnswer[]): Promise<void> {
  await assert.rejects(call, (err) => err instanceof StreamableHTTPError && err.code === 401);
  const answer = answers.at(-1);
  assert.ok(answer !== undefined);
  assert.equal(answer.status, 401);
  // RFC 6750 §3.1 and RFC 9728 §5.1: as a revoked token, naming the endpoint's resource metadata.
  assert.equal(
    answer.headers.get("www-authenticate"),
    'Bearer error="invalid_token", resource_metadata="http://localhost/.well-known/oauth-protected-resource/mcp"',
  );
  assert.equal(answer.headers.get("content-type"), "application/json; charset=utf-8");
  assert.equal(answer.headers.get("cache-control"), "no-store");
  // lib/mcp README "Authentication": the same JSON-RPC error without an id (-32600) as any 401 of the endpoint.
  assert.deepEqual(JSON.parse(answer.body), {
    jsonrpc: "2.0",
    error: { code: -32600, message: "unauthorized: an agent token is required as Authorization: Bearer" },
  });
}

const expenses = (app: RaceApp): number => (app.db.prepare("SELECT count(*) AS n FROM expenses").get() as { n: number }).n;

/** The outcomes of the "tool.call" events on `address`'s audit stream, in order. */
const toolCalls = (app: RaceApp, address: string): unknown[] =>
  app.events
    .read(auditStream(address))
    .filter((e) => e.Type === "tool.call")
    .map((e) => (e.Data as { outcome: unknown }).outcome);

describe("account: an MCP tool call in flight", () => {
  it("with nothing racing it, the waiting call writes its expense and is answered with it (the races' control)", async (t) => {
    const app = await startRaceApp(t);
    const { call } = await waitingCall(t, app);
    app.gate.release();
    const done = (await call) as CallToolResult;
    assert.equal(done.isError, undefined);
    assert.equal(app.expensesOf(ADA), 1);
    assert.deepEqual(toolCalls(app, ADA), ["approval_required", "started", "ok"]);
  });

  it("waiting across a deletion, commits nothing and is answered 401; a new account at the address is empty", async (t) => {
    const app = await startRaceApp(t);
    const { ada, call, answers } = await waitingCall(t, app);
    assert.deepEqual(toolCalls(app, ADA), ["approval_required", "started"]);

    assert.equal((await app.request("POST", ROUTES.delete, { jar: ada, form: { email: ADA } })).location, "/signin?account=deleted");
    app.gate.release();
    await assertRevoked(call, answers);
    assert.equal(expenses(app), 0, "no expense of anyone");
    assert.deepEqual(scan(app.db, ADA), [], "no column of any table holds the address, no event of the call either");

    const again = await app.signIn(ADA);
    assert.equal((await app.request("GET", "/me", { jar: again })).status, 200);
    assert.equal(app.expensesOf(ADA), 0, "the new account starts empty");
    assert.deepEqual(toolCalls(app, ADA), [], "no call of the old account on the new one's stream");
  });

  it("waiting across a change of address, commits nothing under either address and is answered 401", async (t) => {
    const app = await startRaceApp(t);
    const { ada, call, answers } = await waitingCall(t, app);

    const { code } = await askChange(app, ada, NEW, ADA);
    assert.equal((await app.request("POST", ROUTES.code, { jar: ada, form: { code } })).location, "/account/security?address=changed");
    const before = [app.events.version(auditStream(ADA)), app.events.version(auditStream(NEW))];
    app.gate.release();
    await assertRevoked(call, answers);
    assert.equal(app.expensesOf(ADA), 0, "nothing landed under the old address");
    assert.equal(expenses(app), 0, "nor under the new one, nor anyone's");
    assert.deepEqual([app.events.version(auditStream(ADA)), app.events.version(auditStream(NEW))], before, "nothing appended since");
    assert.deepEqual([...toolCalls(app, ADA), ...toolCalls(app, NEW)], ["approval_required", "started"], "no outcome of the call");
  });
});
