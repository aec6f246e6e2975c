/*
 * No full table scan on a request path (issue 27): the demo, built in this
 * process on a database whose `prepare` records every statement executed
 * and the parameters it ran with, serves the request paths a person and an
 * agent take (sign-in link and rate, session lookup, account, activity,
 * agent tokens, approvals, events, the expenses list with a filter, a sort
 * and a keyset page, record page and its history, create, the tools over
 * HTTP and MCP).
 * Each statement is then explained with the parameters it ran with; a
 * `SCAN <table>` step without an index fails the test, naming the SQL.
 * Statements run at boot (the schema) are not on a request path and are
 * not recorded. Nor does a statement bind its LIMIT (SQLite plans it anew
 * each time), but for those `BOUND_LIMITS` names.
 */
import assert from "node:assert/strict";
import { dirname } from "node:path";
import { Writable } from "node:stream";
import { describe, it } from "node:test";
import { OpenDB, type DB } from "../../lib/db/index.ts";
import { ownerTag } from "../../lib/manifest/search.ts";
import { newLogger } from "../../lib/http/index.ts";
import { Handler } from "../../lib/index.ts";
import { demoOptions } from "../../examples/demo/app.ts";
import { loadConfig } from "../../examples/demo/config.ts";
import { tempFile } from "./../_support/db.ts";
import { copyClientScripts, isSigninMail } from "../_support/demo.ts";
import { CookieJar, sendRequest, type TestResponse } from "../_support/http-client.ts";
import { startServer } from "../_support/server.ts";
import { startSMTPServer } from "../_support/smtp-server.ts";

/** One statement as executed: its SQL and the parameters of its first run. */
interface Executed {
  sql: string;
  params: unknown[];
}

const METHODS = ["run", "get", "all", "iterate"] as const;

/** Wraps `db.prepare` so every statement records its SQL and first parameters while `recording()` holds. */
function recordStatements(db: DB, recording: () => boolean): Map<string, Executed> {
  const seen = new Map<string, Executed>();
  const prepare = db.prepare.bind(db);
  db.prepare = ((source: string) => {
    const statement = prepare(source) as unknown as Record<string, (...args: unknown[]) => unknown>;
    for (const method of METHODS) {
      const original = statement[method]!.bind(statement);
      statement[method] = (...params: unknown[]) => {
        if (recording() && !seen.has(source)) seen.set(source, { sql: source, params });
        return original(...params);
      };
    }
    return statement;
  }) as unknown as DB["prepare"];
  return seen;
}

/**
 * Scans that stay: the notices outbox is emptied after every transaction
 * that fills it, so reading all of it reads only the notices not yet mailed.
 */
const BOUNDED_SCANS: ReadonlySet<string> = new Set(["SELECT * FROM signin_notices ORDER BY id"]);

/**
 * Sorts that stay in a temporary B-tree: each sorts one person's rows of a
 * kind a person holds few of (at most MAX_KNOWN_DEVICES devices, at most
 * MAX_AGENT_TOKENS live tokens, the passkeys they registered, the teams they
 * joined, named by team on the tokens page). A list of
 * records sorts through an index, so page 1 and page 500 read one page.
 */
const BOUNDED_SORTS: ReadonlySet<string> = new Set([
  "SELECT device_hash, locale FROM signin_notice_devices WHERE subject = ? ORDER BY last_seen DESC",
  "DELETE FROM signin_notice_devices WHERE subject = ? AND device_hash IN (SELECT device_hash FROM signin_notice_devices WHERE subject = ? ORDER BY last_seen DESC LIMIT -1 OFFSET ?)",
  "SELECT * FROM passkey_credentials WHERE subject = ? ORDER BY created_at, id",
  "SELECT t.id, t.name, m.role FROM team_members m JOIN teams t ON t.id = m.team WHERE m.subject = ? ORDER BY t.name, t.id",
  "SELECT id, subject, name, access, created_at, expires_at, last_used_at, client_id, client_name, client_host FROM agent_tokens WHERE revoked_at IS NULL AND subject = ? AND expires_at > ? ORDER BY created_at DESC, id",
]);

/**
 * Statements on the paths served here that bind their LIMIT still: the activity page's newest events of each part of a
 * person's history, people's or agents' apart (events `latestHistory`): filtered by actor, so no range of sequences, and
 * any number asked. Not on a working day's busy paths (BENCHMARKS.md (o)); each read plans its statement anew. (Paths not
 * served here bind theirs too: `EventStore.latest`, the operators' page of a person.)
 */
const BOUND_LIMITS: ReadonlySet<string> = new Set([
  "SELECT * FROM events INDEXED BY events_by_people WHERE stream = ? AND actor = 'human' AND seq > ? AND seq <= ? ORDER BY seq DESC LIMIT ?",
  "SELECT * FROM events WHERE stream = ? AND actor <> 'human' AND seq > ? AND seq <= ? ORDER BY seq DESC LIMIT ?",
]);

/** The steps of the plan `executed` runs with. */
function plan(db: DB, executed: Executed): string[] {
  return (db.prepare(`EXPLAIN QUERY PLAN ${executed.sql}`).all(...executed.params) as { detail: string }[]).map((step) => step.detail);
}

/** The statement's SQL on one line, as the allow-lists name it. */
const oneLine = (sql: string): string => sql.replace(/\s+/g, " ").trim();

/**
 * The checks of the statements recorded while the demo served: no whole table read, no keyset page bounded by the owner
 * alone, no sort outside an index but the bounded ones, no bound LIMIT but `BOUND_LIMITS`, and both ways a search reads.
 */
function assertPlans(db: DB, executed: Map<string, Executed>): void {
  assert.ok(executed.size > 20, `recorded ${executed.size} statements`);
  const statements = [...executed.values()].map((e) => ({ sql: oneLine(e.sql), steps: plan(db, e) }));
  // A whole table read: `SCAN t` with no index (a constant row is no table, a co-routine's rows are what its own steps read),
  // or a virtual table (a search index) read with no constraint: `INDEX 0:` with nothing after the colon (`M1` is a MATCH,
  // `=` a rowid). `json_each`'s rows are those of the JSON array bound to it, not a table's.
  const wholeTable = (step: string, steps: string[]): boolean => {
    const scan = /^SCAN (?!CONSTANT ROW|json_each )(\S+|\(subquery-\d+\))( VIRTUAL TABLE INDEX \d+:)?$/.exec(step);
    return scan !== null && !steps.includes(`CO-ROUTINE ${scan[1]}`);
  };
  const scanning = statements.filter((s) => !BOUNDED_SCANS.has(s.sql) && s.steps.some((step) => wholeTable(step, s.steps)));
  assert.deepEqual(
    scanning.map((s) => s.sql),
    [],
  );
  // All of a person's matching rows sorted before the first page is read.
  // A keyset page (`after`) seeks to its cursor in the sort index: a plan bounded by the owner alone reads every row before it.
  const unbounded = statements.filter(
    (s) => / OR id [<>] \?|\) [<>] \(\?, \?\)/.test(s.sql) && s.steps.some((step) => /\(owner=\?\)$/.test(step)),
  );
  assert.deepEqual(
    unbounded.map((s) => s.sql),
    [],
  );
  const sorting = statements.filter((s) => !BOUNDED_SORTS.has(s.sql) && s.steps.some((step) => step.startsWith("USE TEMP B-TREE")));
  assert.deepEqual(
    sorting.map((s) => s.sql),
    [],
  );
  // A LIMIT bound as a parameter: SQLite (3.53) prepares such a statement again each time it is bound, planning it anew
  // (BENCHMARKS.md (o)); a request path's LIMIT is written into the SQL or is a range of keys.
  const boundLimits = statements.filter((s) => !BOUND_LIMITS.has(s.sql) && /\bLIMIT\s+[?:@$]/i.test(s.sql));
  assert.deepEqual(
    boundLimits.map((s) => s.sql),
    [],
  );
  // Both ways a search reads: the person's rows in the list's order, each looked up in the index, then the index's matches
  // among the person's rows alone, found by the person's tag (lib/manifest/search.ts), never every person's matches.
  const searches = [...executed.values()].filter((e) => e.sql.includes('"expenses_search" MATCH ?'));
  assert.deepEqual(
    searches.map((e) => (e.sql.includes("latch_rowid") ? "in the list's order" : "the index's matches")),
    ["in the list's order", "the index's matches"],
  );
  const owner = db.prepare("SELECT DISTINCT owner FROM expenses").pluck().get() as string;
  assert.equal(
    searches[1]?.params.find((p) => typeof p === "string" && p.includes("lunch")),
    `"${ownerTag(owner)}" AND "lunch"`,
  );
}

describe("query plans on request paths", () => {
  it("no statement the demo runs while serving reads a whole table", async (t) => {
    copyClientScripts();
    const smtp = await startSMTPServer();
    t.after(() => smtp.close());
    const served = await startServer(t);
    const origin = `http://localhost:${served.port}`;
    const path = tempFile(t);
    const db = OpenDB(path);
    t.after(() => db.close());
    let serving = false;
    const executed = recordStatements(db, () => serving);
    const quiet = new Writable({ write: (_chunk, _encoding, done) => done() });
    const logger = newLogger({ stream: quiet });
    const env = {
      STATE_DIRECTORY: dirname(path),
      ORIGIN: origin,
      INSTANCE_KEY: "query-plan-instance-key-not-secret",
      SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
      MAIL_FROM: "demo@localhost",
      JOB_STEP_MS: "50",
    };
    const { cleanup, ...options } = demoOptions(loadConfig(env, logger), logger);
    t.after(cleanup);
    const [handler, close] = Handler({ ...options, DB: db });
    t.after(close);
    served.server.on("request", (req, res) => void handler(req, res));
    serving = true;

    const send = (method: string, path: string, options: Parameters<typeof sendRequest>[3] = {}): Promise<TestResponse> =>
      sendRequest(served.base, method, path, options, origin);
    const jar = new CookieJar();
    assert.equal((await send("POST", "/signin", { jar, form: { email: "ada@example.com" } })).location, "/signin?sent=1");
    const mail = await smtp.waitForMessage(isSigninMail);
    const link = /\/auth\/verify\?token=[A-Za-z0-9_-]+/.exec(mail.parsed.text ?? "")?.[0] ?? "";
    assert.equal((await send("GET", link, { jar })).location, "/account");
    assert.equal((await send("GET", "/account", { jar })).status, 200);
    const minted = await send("POST", "/account/agents", { jar, form: { name: "ledger", access: "write" } });
    const token = /data-agent-token="([A-Za-z0-9_-]+)"/.exec(minted.body)?.[1] ?? "";
    assert.notEqual(token, "");
    for (let n = 1; n <= 3; n++) {
      assert.equal((await send("POST", "/expenses", { jar, form: { label: `lunch ${n}`, amount: String(n) } })).status, 303);
    }
    // Newer records without the word searched below: its page does not fill in the list's order within the rows a search
    // reads that way, so the search asks the index for the person's matches (table.ts #search; both statements are checked).
    for (let n = 1; n <= 100; n++) {
      assert.equal((await send("POST", "/expenses", { jar, form: { label: `taxi ${n}`, amount: "1" } })).status, 303);
    }
    const list = await send("GET", "/expenses?label=lunch&sort=amount&dir=desc", { jar });
    assert.equal(list.status, 200);
    const record = /data-record-id="([^"]+)"/.exec(list.body)?.[1] ?? "";
    const after = Buffer.from(JSON.stringify(["lunch 3", record])).toString("base64url");
    for (const page of [
      `/expenses?sort=label&dir=asc&after=${after}`,
      "/expenses?sort=updated_at&amount_min=1",
      "/expenses?sort=id",
      // A keyset page along an expression index (an amount can be empty): the cursor must bound the index, not filter it.
      `/expenses?amount_min=0.01&sort=amount&dir=desc&after=${Buffer.from(JSON.stringify([300, record])).toString("base64url")}`,
      // Search: a word of three characters or more through the trigram index, a shorter one looked for in the person's rows.
      "/expenses?q=lunch",
      "/expenses?q=lu&sort=amount",
      `/expenses/${record}`,
    ]) {
      assert.equal((await send("GET", page, { jar })).status, 200, page);
    }
    // A note referencing an expense: its select, its link and filter, and the expense's delete clearing the reference.
    assert.equal((await send("POST", "/notes", { jar, form: { title: "receipt", body: "", expense: record } })).status, 303);
    for (const page of ["/notes/new", "/notes", `/notes?expense=${record}`]) {
      assert.equal((await send("GET", page, { jar })).status, 200, page);
    }
    assert.equal((await send("POST", `/expenses/${record}/delete`, { jar, form: {} })).status, 303);
    assert.equal((await send("GET", "/account/activity", { jar })).status, 200);
    const call = (tool: string, args: unknown): Promise<TestResponse> =>
      send("POST", `/api/tools/${tool}`, {
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
        body: JSON.stringify(args),
      });
    assert.equal((await call("expenses_list", {})).status, 200);
    const held = await call("expenses_create", { label: "agent lunch", amount: "7.50" });
    assert.equal(held.status, 202);
    const approval = new URL((JSON.parse(held.body) as { approval_url: string }).approval_url).pathname;
    assert.equal((await send("GET", approval, { jar })).status, 200);
    assert.equal((await send("POST", approval, { jar, form: { decision: "approve" } })).status, 200);
    const createdByAgent = await call("expenses_create", { label: "agent lunch", amount: "7.50" });
    assert.equal(createdByAgent.status, 200);
    // A record's history (issue 43): its page from a cursor and its tool, along the stream's key.
    const agentRecord = (JSON.parse(createdByAgent.body) as { result: { id: string } }).result.id;
    assert.equal((await send("GET", `/expenses/${agentRecord}/history?before=2`, { jar })).status, 200);
    assert.equal((await call("expenses_history", { id: agentRecord, before: 2 })).status, 200);
    const mcp = await send("POST", "/mcp", {
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "expenses_list", arguments: {} } }),
    });
    assert.equal(mcp.status, 200);
    assert.equal((await send("POST", "/signout", { jar })).status, 303);
    serving = false;

    assertPlans(db, executed);
  });
});
