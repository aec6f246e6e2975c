/*
 * Bulk changes (issue 43, 4), black box on the demo (`node dist/examples/demo/main.js`, real SMTP, real HTTP, Chromium):
 * selecting three expenses and deleting them leaves three events attributed to the person, and the list says so; one
 * field set on three shows in each record's history; another person's id refuses the whole change; an agent's
 * `expenses_bulk` is one approval whose page lists every record before → after, and the repeated call applies it, each
 * change attributed to agent:<name>. In the browser, "select all" is reached and pressed by keyboard alone.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import Database from "better-sqlite3";
import { axeViolations } from "../_support/axe.ts";
import { hasChromium, launchBrowser, watchedPage, type Browser } from "../_support/browser.ts";
import { mintAgentToken, signInByLink, signInOverHTTP, startDemo, type Demo } from "../_support/demo.ts";
import { sendRequest, type CookieJar, type TestResponse } from "../_support/http-client.ts";

describe("demo: bulk changes (HTTP, tools, Chromium)", () => {
  let demo: Demo;
  let ada: CookieJar;
  let bob: CookieJar;
  let token: string;
  let db: Database.Database;
  const post = (jar: CookieJar, path: string, body: URLSearchParams): Promise<TestResponse> =>
    sendRequest(
      demo.origin,
      "POST",
      path,
      { jar, headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: body.toString() },
      demo.origin,
    );
  const expense = async (jar: CookieJar, label: string): Promise<string> => {
    const form = new URLSearchParams({ label, amount: "12.50", spent_on: "2026-03-01", category: "travel" });
    const created = await post(jar, "/expenses", form);
    const id = /^\/expenses\/([A-Za-z0-9_-]+)$/.exec(created.location ?? "")?.[1] ?? "";
    assert.notEqual(id, "", `${created.status} ${created.location ?? ""}`);
    return id;
  };
  const bulk = (jar: CookieJar, fields: Record<string, string>, ids: string[]): Promise<TestResponse> =>
    post(jar, "/expenses/bulk", new URLSearchParams([...Object.entries(fields), ...ids.map((id): [string, string] => ["ids", id])]));
  const call = (tool: string, args: Record<string, unknown>): Promise<TestResponse> =>
    sendRequest(
      demo.origin,
      "POST",
      `/api/tools/${tool}`,
      { headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" }, body: JSON.stringify(args) },
      demo.origin,
    );
  const eventsOf = (ids: string[], type: string) =>
    db
      .prepare(`SELECT stream, actor, subject FROM events WHERE type = ? AND stream IN (${ids.map(() => "?").join(",")}) ORDER BY stream`)
      .all(type, ...ids.map((id) => `expenses:${id}`)) as { stream: string; actor: string; subject: string }[];

  before(async () => {
    demo = await startDemo();
    ada = await signInOverHTTP(demo, "ada-bulk@example.com");
    bob = await signInOverHTTP(demo, "bob-bulk@example.com");
    token = await mintAgentToken(demo, ada, "ledger", "write");
    db = new Database(join(demo.stateDir, "demo.db"), { readonly: true });
  });
  after(async () => {
    db?.close();
    await demo?.close();
  });

  it("deletes three selected expenses: three events by the person, the list says so; another's id changes nothing", async () => {
    const ids = await Promise.all(["Taxi", "Bus", "Ferry", "Tram"].map((label) => expense(ada, label)));
    const theirs = await expense(bob, "Bob's lunch");
    const refused = await bulk(ada, { action: "delete" }, [ids[0]!, theirs]);
    assert.equal(refused.status, 404, refused.body);
    assert.match(refused.body, new RegExp(`<li data-bulk-refused>no such record: ${theirs}</li>`));
    assert.deepEqual(eventsOf(ids, "expenses.deleted"), []);

    const done = await bulk(ada, { action: "delete" }, ids.slice(0, 3));
    assert.equal(done.status, 303, done.body);
    const list = await sendRequest(demo.origin, "GET", done.location ?? "", { jar: ada }, demo.origin);
    assert.match(list.body, /data-outcome="bulk.deleted"><p>Records deleted: 3\.<\/p>/);
    assert.doesNotMatch(list.body, /Taxi|Bus|Ferry/);
    assert.match(list.body, /Tram/);
    const deleted = eventsOf(ids, "expenses.deleted");
    assert.equal(deleted.length, 3);
    for (const e of deleted) assert.deepEqual([e.actor, e.subject], ["human", "ada-bulk@example.com"]);
  });

  it("sets a field on three: each record's history shows it, before → after", async () => {
    const ids = await Promise.all(["Hotel", "Hostel", "Inn"].map((label) => expense(ada, label)));
    const done = await bulk(ada, { action: "set", field: "category", value: "meals" }, ids);
    assert.equal(done.status, 303, done.body);
    assert.equal(done.location, "/expenses?bulk_updated=3");
    for (const id of ids) {
      const page = await sendRequest(demo.origin, "GET", `/expenses/${id}`, { jar: ada }, demo.origin);
      assert.match(
        page.body,
        /<tr data-change="category"><th scope="row">[^<]+<\/th><td data-before>.*?Travel.*?<\/td><td data-after>.*?Meals.*?<\/td>/s,
      );
    }
    assert.equal(eventsOf(ids, "expenses.updated").length, 3);
  });

  it("asks for one approval listing every record before → after; the repeated call applies it as agent:ledger", async () => {
    const ids = await Promise.all(["Pens", "Paper", "Ink"].map((label) => expense(ada, label)));
    const args = { action: "set", ids: ids.join(","), field: "amount", value: "20.00" };
    const held = await call("expenses_bulk", args);
    assert.equal(held.status, 202, held.body);
    const approvalPath = new URL((JSON.parse(held.body) as { approval_url: string }).approval_url).pathname;
    const page = await sendRequest(demo.origin, "GET", approvalPath, { jar: ada }, demo.origin);
    assert.equal(page.status, 200, page.body);
    for (const [n, label] of ["Pens", "Paper", "Ink"].entries())
      assert.match(
        page.body,
        new RegExp(
          `<tr data-change="${ids[n]}"><th scope="row">${label} · [^<]+</th><td data-before>.*?12\\.50.*?</td><td data-after>.*?20\\.00.*?</td>`,
          "s",
        ),
      );
    assert.equal((await post(ada, approvalPath, new URLSearchParams({ decision: "approve" }))).status, 200);
    const ran = await call("expenses_bulk", args);
    assert.equal(ran.status, 200, ran.body);
    const updated = eventsOf(ids, "expenses.updated");
    assert.equal(updated.length, 3);
    for (const e of updated) assert.equal(e.actor, "agent:ledger");
  });

  it("selects every row by keyboard and deletes them from the list page", { skip: !hasChromium && "no chromium" }, async () => {
    const browser: Browser = await launchBrowser();
    try {
      const context = await browser.newContext();
      const { page } = await watchedPage(context);
      await signInByLink(page, demo, "cleo-bulk@example.com");
      for (const label of ["Rent", "Gas", "Water"]) {
        await page.goto(`${demo.origin}/expenses/new`);
        await page.fill('input[name="label"]', label);
        await page.fill('input[name="amount"]', "30.00");
        await page.click('form.resource-form button[type="submit"]');
      }
      await page.goto(`${demo.origin}/expenses`);
      // WCAG 2.1 A/AA (test/_support/axe.ts): each checkbox and the form's inputs are labelled.
      assert.deepEqual(await axeViolations(page), []);
      await page.focus("input[data-bulk-all]");
      await page.keyboard.press("Space");
      const checked = await page.evaluate(`[...document.querySelectorAll("input[data-bulk-select]")].map((b) => b.checked)`);
      assert.deepEqual(checked, [true, true, true]);
      await page.focus('button[data-bulk-action="delete"]');
      await page.keyboard.press("Enter");
      await page.waitForSelector('[data-outcome="bulk.deleted"]');
      assert.equal(await page.textContent('[data-outcome="bulk.deleted"]'), "Records deleted: 3.");
      assert.equal(await page.evaluate(`document.querySelectorAll("tr[data-record-id]").length`), 0);
    } finally {
      await browser.close();
    }
  });
});
