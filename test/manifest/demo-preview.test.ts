/*
 * The approval page a person understands (issue 39, item 1), black box on the demo (`node dist/examples/demo/main.js`,
 * real SMTP, real HTTP): an agent's `expenses_update` over `POST /api/tools` and over MCP is a page naming the record by
 * its title with each changed field by label, before → after in the person's locale, unchanged fields folded away, and
 * neither the record's id nor the call's version shown; a create lists its values, a delete what refers to the record;
 * a record changed meanwhile is stale: no Approve, and a POST approving it approves nothing.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import Database from "better-sqlite3";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { formatDate } from "../../lib/manifest/scalars.ts";
import { formatMoney } from "../../lib/manifest/money.ts";
import { mintAgentToken, signInOverHTTP, startDemo, type Demo } from "../_support/demo.ts";
import { sendRequest, type CookieJar, type TestResponse } from "../_support/http-client.ts";
import { connectMCP } from "../_support/mcp-client.ts";

/** The text of the first element carrying `attribute` (and `value`, when given) in `body`, tags removed. */
function textOf(body: string, selector: RegExp): string | undefined {
  const match = selector.exec(body);
  return match?.[1]?.replace(/<[^>]+>/g, "").trim();
}
const cell = (body: string, field: string, side: "before" | "after"): string | undefined =>
  textOf(body, new RegExp(`<tr data-change="${field}">.*?<td data-${side}[^>]*>(.*?)</td>`, "s"));
const valueCell = (body: string, field: string): string | undefined =>
  textOf(body, new RegExp(`<tr data-value="${field}">.*?<td[^>]*>(.*?)</td>`, "s"));
const title = (body: string): string | undefined => textOf(body, /<strong data-record-title[^>]*>(.*?)<\/strong>/s);
const euros = (minor: number, locale: string): string => formatMoney(minor, locale, "EUR");

describe("demo: the approval page of a resource write (HTTP, MCP)", () => {
  let demo: Demo;
  let ada: CookieJar;
  let token: string;
  let db: Database.Database;
  const page = (url: string, language = "en"): Promise<TestResponse> =>
    sendRequest(
      demo.origin,
      "GET",
      new URL(url, demo.origin).pathname,
      { jar: ada, headers: { "Accept-Language": language } },
      demo.origin,
    );
  const post = (path: string, form: Record<string, string>): Promise<TestResponse> =>
    sendRequest(demo.origin, "POST", path, { jar: ada, form }, demo.origin);
  const call = (tool: string, args: Record<string, unknown>): Promise<TestResponse> =>
    sendRequest(
      demo.origin,
      "POST",
      `/api/tools/${tool}`,
      { headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" }, body: JSON.stringify(args) },
      demo.origin,
    );
  const held = async (tool: string, args: Record<string, unknown>): Promise<string> => {
    const res = await call(tool, args);
    assert.equal(res.status, 202, res.body);
    return (JSON.parse(res.body) as { approval_url: string }).approval_url;
  };
  const expense = async (form: Record<string, string>): Promise<{ id: string; version: number }> => {
    const created = await post("/expenses", form);
    const id = /^\/expenses\/([A-Za-z0-9_-]+)$/.exec(created.location ?? "")?.[1] ?? "";
    assert.notEqual(id, "", `${created.status} ${created.location ?? ""}`);
    const read = await call("expenses_read", { id });
    return { id, version: (JSON.parse(read.body) as { result: { version: number } }).result.version };
  };

  before(async () => {
    demo = await startDemo();
    ada = await signInOverHTTP(demo, "ada-preview@example.com");
    token = await mintAgentToken(demo, ada, "ledger", "write");
    db = new Database(join(demo.stateDir, "demo.db"), { readonly: true });
  });
  after(async () => {
    db?.close();
    await demo?.close();
  });

  it("an update names the record, shows before → after by label in the person's locale, folds the rest, and no id or version", async () => {
    const { id, version } = await expense({ label: "Train to Lyon", amount: "12.50", spent_on: "2026-03-01", category: "travel" });
    const url = await held("expenses_update", { id, version, label: "Train to Lyon", amount: "15.00", category: "meals" });
    for (const locale of ["en", "de"]) {
      const { status, body } = await page(url, locale);
      assert.equal(status, 200);
      assert.match(body, /data-preview="update"/);
      assert.equal(title(body), "Train to Lyon");
      assert.deepEqual([cell(body, "amount", "before"), cell(body, "amount", "after")], [euros(1250, locale), euros(1500, locale)], locale);
      assert.deepEqual(
        [cell(body, "category", "before"), cell(body, "category", "after")],
        locale === "en" ? ["Travel", "Meals"] : ["Reisen", "Verpflegung"],
      );
      // The label sent is the one stored: unchanged, folded away with the date, formatted as the list shows it.
      assert.doesNotMatch(body, /data-change="label"/);
      const folded = /<details data-unchanged>(.*?)<\/details>/s.exec(body)?.[1] ?? "";
      assert.ok(folded.includes("Train to Lyon") && folded.includes(formatDate("2026-03-01", locale)), folded);
      assert.ok(!body.includes(String(version)), "the version is not shown");
      assert.ok(!body.includes(id), "the id is not shown");
      assert.doesNotMatch(body, /data-arguments/);
      assert.match(body, /data-approval="approve"/);
    }
  });

  it("a record changed since the agent read it is stale: no Approve, and approving it approves nothing", async () => {
    const { id, version } = await expense({ label: "Taxi", amount: "30.00" });
    const url = await held("expenses_update", { id, version, amount: "31.00" });
    const path = new URL(url).pathname;
    assert.equal((await post(`/expenses/${id}`, { version: String(version), label: "Taxi home", amount: "30.00" })).status, 303);
    const stale = await page(url);
    assert.match(stale.body, /data-outcome="stale"/);
    assert.match(stale.body, /This record changed since the agent read it/);
    assert.equal(title(stale.body), "Taxi home");
    assert.doesNotMatch(stale.body, /data-approval="approve"/);
    assert.match(stale.body, /data-approval="decline"/);

    const approved = await post(path, { decision: "approve" });
    assert.equal(approved.status, 200);
    assert.match(approved.body, /data-outcome="stale"/);
    const approvalID = path.split("/").pop();
    assert.equal((db.prepare("SELECT status FROM agent_approvals WHERE id = ?").get(approvalID) as { status: string }).status, "pending");
    assert.equal(
      (
        db.prepare("SELECT count(*) AS n FROM events WHERE type = 'agent.call_approved' AND data LIKE ?").get(`%${approvalID}%`) as {
          n: number;
        }
      ).n,
      0,
    );
    // Nor does a batch from the list: the list's card shows the preview, and the stale call is named and left waiting.
    const list = await page(`${demo.origin}/account/approvals`);
    assert.match(list.body, new RegExp(`data-approval-id="${approvalID}"[^>]*>[\\s\\S]*?data-outcome="stale"`));
    const batch = await post("/account/approvals", { id: approvalID ?? "", decision: "approve" });
    assert.match(batch.body, /data-batch-done="0"/);
    assert.match(batch.body, /<li data-batch-refused="stale"><code data-agent-text dir="auto">expenses_update<\/code>/);
    assert.equal((db.prepare("SELECT status FROM agent_approvals WHERE id = ?").get(approvalID) as { status: string }).status, "pending");
    // The agent's repeat is refused as stale by the tool's check (409), never run on an approval.
    assert.equal((await call("expenses_update", { id, version, amount: "31.00" })).status, 409);
    assert.equal((db.prepare("SELECT amount FROM expenses WHERE id = ?").get(id) as { amount: number }).amount, 3000);
  });

  it("a create lists its values by label; a delete names the record and what refers to it; a job keeps the arguments table", async () => {
    const created = (await page(await held("expenses_create", { label: "Hotel", amount: "80.00", category: "other" }))).body;
    assert.match(created, /data-preview="create"/);
    assert.equal(title(created), undefined);
    assert.deepEqual(
      [valueCell(created, "label"), valueCell(created, "amount"), valueCell(created, "category")],
      ["Hotel", euros(8000, "en"), "Other"],
    );

    const { id } = await expense({ label: "Museum", amount: "9.00" });
    assert.equal((await post("/notes", { title: "Receipt", body: "", expense: id })).status, 303);
    const deleted = (await page(await held("expenses_delete", { id }))).body;
    assert.match(deleted, /data-preview="delete"/);
    assert.equal(title(deleted), "Museum");
    assert.equal(valueCell(deleted, "amount"), euros(900, "en"));
    assert.match(deleted, /<li data-referred-by="notes" data-on-delete="clear">Notes: 1 refer to this record; deleting it empties/);
    assert.ok(!deleted.includes(id));

    const job = (await page(await held("start_job", { kind: "ok" }))).body;
    assert.match(job, /data-arguments/);
    assert.doesNotMatch(job, /data-preview/);
  });

  it("an update asked over MCP shows the same page", async () => {
    const { id, version } = await expense({ label: "Ferry", amount: "40.00" });
    const client = await connectMCP(demo, token);
    const result = (await client.callTool({ name: "expenses_update", arguments: { id, version, amount: "45.50" } })) as CallToolResult;
    await client.close();
    const url = (result.structuredContent as { approval_url: string }).approval_url;
    const { body } = await page(url, "de");
    assert.equal(title(body), "Ferry");
    assert.deepEqual([cell(body, "amount", "before"), cell(body, "amount", "after")], [euros(4000, "de"), euros(4550, "de")]);
    assert.ok(!body.includes(String(version)) && !body.includes(id));
  });
});
