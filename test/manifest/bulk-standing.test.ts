/*
 * A standing approval of an agent's bulk change covers that action only (review of issue 43, finding 1; OWASP ASVS 5.0
 * §8.2.1, docs/asvs.md): "approve calls like this" on `expenses_bulk` setting a field lets the same set run again, but a
 * delete of the same records asks its person (202), and a delete's standing approval never covers a set. Over the
 * demo's POST /api/tools, as an agent calls it.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { mintAgentToken, signInOverHTTP, startDemo, type Demo } from "../_support/demo.ts";
import { sendRequest, type CookieJar } from "../_support/http-client.ts";

describe("demo: a bulk change's standing approval covers its action only", () => {
  let demo: Demo;
  let ada: CookieJar;
  let token: string;
  const call = async (args: Record<string, unknown>) => {
    const r = await sendRequest(
      demo.origin,
      "POST",
      "/api/tools/expenses_bulk",
      { headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" }, body: JSON.stringify(args) },
      demo.origin,
    );
    return { status: r.status, body: r.body, json: JSON.parse(r.body) as Record<string, unknown> };
  };
  const approvalID = (answer: { json: Record<string, unknown> }): string => String(answer.json["approval_url"]).split("/").pop() ?? "";
  // "Approve calls like this", for the same records and fields (the form's defaults).
  // Without `same_fields` (a form posted without the box): a destructive tool's approval keeps its fields all the same.
  const standing = (id: string, fields: Record<string, string> = { same_fields: "1" }) =>
    sendRequest(
      demo.origin,
      "POST",
      `/account/approvals/${id}`,
      { jar: ada, form: { decision: "standing", calls: "3", hours: "1", same_record: "1", ...fields } },
      demo.origin,
    );
  const expenses = async (labels: string[]): Promise<string> => {
    const ids: string[] = [];
    for (const label of labels) {
      const form = { label, amount: "12.50", spent_on: "2026-03-01", category: "travel" };
      const made = await sendRequest(demo.origin, "POST", "/expenses", { jar: ada, form }, demo.origin);
      ids.push(/^\/expenses\/([A-Za-z0-9_-]+)$/.exec(made.location ?? "")?.[1] ?? "");
    }
    assert.ok(ids.every((id) => id !== ""));
    return ids.join(",");
  };
  const listed = async (ids: string): Promise<number> => {
    const page = await sendRequest(demo.origin, "GET", "/expenses", { jar: ada }, demo.origin);
    return ids.split(",").filter((id) => page.body.includes(`value="${id}"`)).length;
  };

  before(async () => {
    demo = await startDemo();
    ada = await signInOverHTTP(demo, "ada-bulk-standing@example.com");
    token = await mintAgentToken(demo, ada, "ledger", "write");
  });
  after(async () => demo?.close());

  it("lets a set's standing approval run the set again, but a delete of the same records asks", async () => {
    const ids = await expenses(["Pens", "Paper", "Ink"]);
    const set = { action: "set", ids, field: "category", value: "meals" };
    const held = await call(set);
    assert.equal(held.status, 202, held.body);
    assert.equal((await standing(approvalID(held))).status, 303);
    assert.equal((await call(set)).status, 200, "the waiting set runs under it");
    const deleted = await call({ action: "delete", ids });
    assert.equal(deleted.status, 202, deleted.body);
    assert.equal(deleted.json["status"], "approval_required");
    assert.equal(await listed(ids), 3, "nothing deleted");
  });

  it("keeps a set's fields when the form asks for any fields: a delete of the same records still asks", async () => {
    const ids = await expenses(["Clips", "Tape"]);
    const set = { action: "set", ids, field: "category", value: "office" };
    const held = await call(set);
    assert.equal(held.status, 202, held.body);
    assert.equal((await standing(approvalID(held), {})).status, 303);
    assert.equal((await call(set)).status, 200, "the waiting set runs under it");
    const deleted = await call({ action: "delete", ids });
    assert.equal(deleted.status, 202, deleted.body);
    assert.equal(await listed(ids), 2, "nothing deleted");
  });

  it("lets a delete's standing approval cover no set of the same records", async () => {
    const ids = await expenses(["Tea", "Milk"]);
    const held = await call({ action: "delete", ids });
    assert.equal(held.status, 202, held.body);
    assert.equal((await standing(approvalID(held))).status, 303);
    const set = await call({ action: "set", ids, field: "category", value: "meals" });
    assert.equal(set.status, 202, set.body);
    assert.equal((await call({ action: "delete", ids })).status, 200, "the waiting delete runs under it");
    assert.equal(await listed(ids), 0);
  });
});
