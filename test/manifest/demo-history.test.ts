/*
 * A record's page and its history (issue 43, item 1), black box on the demo (`node dist/examples/demo/main.js`, real
 * SMTP, real HTTP, MCP): the record's fields by label as its list shows them; its changes newest first, an agent's
 * attributed to `agent:<name>` with the approval that allowed it and each field before → after in the person's locale,
 * as the approval page showed it; the same over `expenses_history` (HTTP and MCP); another person's request for it 404;
 * and its pages, HISTORY_PAGE_SIZE changes each, along a `before` cursor.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { HISTORY_PAGE_SIZE } from "../../lib/manifest/changes.ts";
import { formatMoney } from "../../lib/manifest/money.ts";
import { mintAgentToken, signInOverHTTP, startDemo, type Demo } from "../_support/demo.ts";
import { sendRequest, type CookieJar, type TestResponse } from "../_support/http-client.ts";
import { connectMCP } from "../_support/mcp-client.ts";

const euros = (minor: number, locale: string): string => formatMoney(minor, locale, "EUR");
const textOf = (html: string): string => html.replace(/<[^>]+>/g, "").trim();
/** The history's entries on a page: each `<li data-history-event>`'s attributes and its body. */
function entries(body: string): { seq: number; kind: string; html: string }[] {
  return [...body.matchAll(/<li data-history-event="(\d+)" data-kind="([a-z_]+)">(.*?)<\/li>/gs)].map((m) => ({
    seq: Number(m[1]),
    kind: m[2] ?? "",
    html: m[3] ?? "",
  }));
}
const change = (html: string, field: string, side: "before" | "after"): string | undefined => {
  const cell = new RegExp(`<tr data-change="${field}">.*?<td data-${side}>(.*?)</td>`, "s").exec(html)?.[1];
  return cell === undefined ? undefined : textOf(cell);
};

/** What `expenses_history` answers. */
interface History {
  items: {
    seq: number;
    kind: string;
    actor: string;
    person: string;
    approval: { id: string; standing: boolean } | null;
    values: boolean;
    changes: { field: string; before?: unknown; after: unknown }[];
  }[];
  next: number | null;
}

describe("demo: a record's page and its history (HTTP, MCP)", () => {
  let demo: Demo;
  let ada: CookieJar;
  let bob: CookieJar;
  let token: string;
  let bobToken: string;
  const page = (jar: CookieJar, path: string, language = "en"): Promise<TestResponse> =>
    sendRequest(demo.origin, "GET", path, { jar, headers: { "Accept-Language": language } }, demo.origin);
  const post = (path: string, form: Record<string, string>): Promise<TestResponse> =>
    sendRequest(demo.origin, "POST", path, { jar: ada, form }, demo.origin);
  const call = (tool: string, args: Record<string, unknown>, bearer = token): Promise<TestResponse> =>
    sendRequest(
      demo.origin,
      "POST",
      `/api/tools/${tool}`,
      { headers: { Authorization: `Bearer ${bearer}`, "Content-Type": "application/json" }, body: JSON.stringify(args) },
      demo.origin,
    );
  const expense = async (form: Record<string, string>): Promise<string> => {
    const created = await post("/expenses", form);
    const id = /^\/expenses\/([A-Za-z0-9_-]+)$/.exec(created.location ?? "")?.[1] ?? "";
    assert.notEqual(id, "", `${created.status} ${created.location ?? ""}`);
    return id;
  };
  const version = async (id: string): Promise<number> =>
    (JSON.parse((await call("expenses_read", { id })).body) as { result: { version: number } }).result.version;

  before(async () => {
    demo = await startDemo();
    ada = await signInOverHTTP(demo, "ada-history@example.com");
    bob = await signInOverHTTP(demo, "bob-history@example.com");
    token = await mintAgentToken(demo, ada, "ledger", "write");
    bobToken = await mintAgentToken(demo, bob, "snoop", "read");
  });
  after(async () => {
    await demo?.close();
  });

  it("shows the record by label and an agent's change as agent:<name>, its approval, before → after in the person's locale", async () => {
    const id = await expense({ label: "Train to Lyon", amount: "12.50", spent_on: "2026-03-01", category: "travel" });
    const args = { id, version: await version(id), amount: "15.00", category: "meals" };
    const held = await call("expenses_update", args);
    assert.equal(held.status, 202, held.body);
    const approvalPath = new URL((JSON.parse(held.body) as { approval_url: string }).approval_url).pathname;
    const approvalID = approvalPath.split("/").pop() ?? "";
    assert.equal((await post(approvalPath, { decision: "approve" })).status, 200);
    assert.equal((await call("expenses_update", args)).status, 200);

    for (const locale of ["en", "de"]) {
      const { status, body } = await page(ada, `/expenses/${id}`, locale);
      assert.equal(status, 200);
      const view = /<dl class="facts" data-record-view>(.*?)<\/dl>/s.exec(body)?.[1] ?? "";
      assert.equal(textOf(/<dd data-value="amount"[^>]*>(.*?)<\/dd>/s.exec(view)?.[1] ?? ""), euros(1500, locale));
      const [newest, created, ...rest] = entries(body);
      assert.deepEqual([newest?.kind, created?.kind, rest.length], ["updated", "created", 0]);
      const agent = newest?.html ?? "";
      assert.match(agent, /<span data-actor="agent:ledger" dir="ltr">agent:ledger<\/span>/);
      assert.match(agent, new RegExp(`data-approval-id="${approvalID}"`));
      assert.deepEqual([change(agent, "amount", "before"), change(agent, "amount", "after")], [euros(1250, locale), euros(1500, locale)]);
      assert.deepEqual(
        [change(agent, "category", "before"), change(agent, "category", "after")],
        locale === "en" ? ["Travel", "Meals"] : ["Reisen", "Verpflegung"],
      );
      assert.doesNotMatch(agent, /data-change="label"/);
      // The person's own creation: the person, the values set.
      assert.match(created?.html ?? "", /<span data-actor="human" dir="ltr">ada-history@example.com<\/span>/);
      assert.equal(change(created?.html ?? "", "label", "after"), "Train to Lyon");
    }

    const viaHTTP = (JSON.parse((await call("expenses_history", { id })).body) as { result: History }).result;
    const client = await connectMCP(demo, token);
    const viaMCP = (await client.callTool({ name: "expenses_history", arguments: { id } })) as CallToolResult;
    await client.close();
    for (const history of [viaHTTP, viaMCP.structuredContent as unknown as History]) {
      assert.deepEqual(
        history.items.map((e) => [e.kind, e.actor, e.approval, e.changes]),
        [
          [
            "updated",
            "agent:ledger",
            { id: approvalID, standing: false },
            [
              { field: "amount", before: "12.50", after: "15.00" },
              { field: "category", before: "travel", after: "meals" },
            ],
          ],
          [
            "created",
            "human",
            null,
            [
              { field: "label", after: "Train to Lyon" },
              { field: "amount", after: "12.50" },
              { field: "spent_on", after: "2026-03-01" },
              { field: "category", after: "travel" },
            ],
          ],
        ],
      );
      assert.equal(history.next, null);
    }
  });

  it("another person's page, history page and history tool answer 404, as an unknown record", async () => {
    const id = await expense({ label: "Private", amount: "3.00" });
    for (const path of [`/expenses/${id}`, `/expenses/${id}/history`, `/expenses/${id}/history?before=2`]) {
      const res = await page(bob, path);
      assert.equal(res.status, 404, path);
      assert.ok(!res.body.includes("Private"), path);
    }
    const res = await call("expenses_history", { id }, bobToken);
    assert.equal(res.status, 404, res.body);
    assert.ok(!res.body.includes("Private"));
  });

  it(`pages the history newest first, ${HISTORY_PAGE_SIZE} changes a page, along its before cursor`, async () => {
    // The page size is part of what a person and an agent see: changing it is a decision, made here too.
    assert.equal(HISTORY_PAGE_SIZE, 20);
    const id = await expense({ label: "v0", amount: "1.00" });
    for (let n = 1; n <= 24; n++) {
      // The version the record's page was rendered from (its form's), as a person's browser posts it.
      const rendered = /name="version" value="(\d+)"/.exec((await page(ada, `/expenses/${id}`)).body)?.[1] ?? "";
      const saved = await post(`/expenses/${id}`, { version: rendered, label: `v${n}`, amount: "1.00" });
      assert.equal(saved.status, 303);
    }
    const first = await page(ada, `/expenses/${id}`);
    const newest = entries(first.body);
    assert.deepEqual(
      newest.map((e) => e.seq),
      Array.from({ length: 20 }, (_, i) => 25 - i),
    );
    assert.equal(change(newest[0]?.html ?? "", "label", "before"), "v23");
    assert.equal(change(newest[0]?.html ?? "", "label", "after"), "v24");
    const next = /<a href="([^"]+)" rel="next" data-history-next>/.exec(first.body)?.[1] ?? "";
    assert.equal(next, `/expenses/${id}/history?before=6#history`);
    const second = await page(ada, next.replace(/#.*$/, ""));
    assert.equal(second.status, 200);
    assert.deepEqual(
      entries(second.body).map((e) => [e.seq, e.kind]),
      [
        [5, "updated"],
        [4, "updated"],
        [3, "updated"],
        [2, "updated"],
        [1, "created"],
      ],
    );
    assert.doesNotMatch(second.body, /data-history-next/);

    const tool = async (args: Record<string, unknown>): Promise<History> =>
      (JSON.parse((await call("expenses_history", { id, ...args })).body) as { result: History }).result;
    const one = await tool({});
    assert.deepEqual([one.items.length, one.items[0]?.seq, one.next], [20, 25, 6]);
    const two = await tool({ before: one.next });
    assert.deepEqual([two.items.map((e) => e.seq), two.next], [[5, 4, 3, 2, 1], null]);

    for (const bad of ["0", "x", "-1", "1e3"]) {
      assert.equal((await page(ada, `/expenses/${id}/history?before=${bad}`)).status, 400, bad);
    }
    assert.equal((await call("expenses_history", { id, before: 0 })).status, 400);
  });
});
