/*
 * The demo's resources over HTTP (`node dist/examples/demo/main.js`, real
 * SMTP): expenses (Exclusive) and notes (Mergeable) created, listed,
 * filtered, edited and deleted by two people who never see each other's
 * records; a stale expense edit refused with the current values; two note
 * edits from one version merged by lines; a title changed two ways shown
 * as a conflict with both values in the stream; bad input refused with a
 * 4xx and nothing stored, an expense's day and category shown and filtered
 * in German, a person's line merges past 20 a minute refused
 * (429), an undeclared field refused without its name
 * echoed into the page or the log; a conflict of the longest CJK body shown with
 * both sides; and an agent listing and, once its person
 * approved, creating an expense, attributed as agent:<name>.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, describe, it } from "node:test";
import Database from "better-sqlite3";
import { signInOverHTTP, startDemo, type Demo } from "../_support/demo.ts";
import { sendRequest, type CookieJar, type TestResponse } from "../_support/http-client.ts";

const idOf = (res: TestResponse, route: string): string => {
  const match = new RegExp(`^${route}/([A-Za-z0-9_-]+)$`).exec(res.location ?? "");
  assert.ok(match?.[1] !== undefined, `redirect to the record, got ${res.status} ${res.location ?? ""}`);
  return match[1];
};
const versionIn = (body: string): string => /name="version" value="([0-9]+)"/.exec(body)?.[1] ?? "";
const idsIn = (body: string): string[] =>
  [...body.matchAll(/data-record-id="([^"]+)"/g)].map((m) => m[1] ?? "").filter((v, i, a) => a.indexOf(v) === i);

describe("demo resources (HTTP)", () => {
  let demo: Demo;
  let ada: CookieJar;
  let bob: CookieJar;
  let db: Database.Database;
  const get = (jar: CookieJar | undefined, path: string): Promise<TestResponse> =>
    sendRequest(demo.origin, "GET", path, jar === undefined ? {} : { jar }, demo.origin);
  const post = (jar: CookieJar, path: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<TestResponse> =>
    sendRequest(demo.origin, "POST", path, { jar, form, headers }, demo.origin);
  const count = (table: string): number => (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;

  before(async () => {
    demo = await startDemo();
    ada = await signInOverHTTP(demo, "ada@example.com");
    bob = await signInOverHTTP(demo, "bob@example.com");
    db = new Database(join(demo.stateDir, "demo.db"), { readonly: true });
  });
  after(async () => {
    db?.close();
    await demo?.close();
  });

  it("links both resources from the account page and requires a session", async () => {
    const account = await get(ada, "/account");
    assert.match(account.body, /href="\/expenses"/);
    assert.match(account.body, /href="\/notes"/);
    for (const path of ["/expenses", "/notes/new"]) assert.equal((await get(undefined, path)).status, 401, path);
    assert.match((await get(ada, "/expenses")).body, /data-empty/);
  });

  it("records the day and category of an expense, shown and filtered in the person's language (issue 25)", async () => {
    const erin = await signInOverHTTP(demo, "erin@example.com");
    const german = { "Accept-Language": "de" };
    const hotel = idOf(
      await post(erin, "/expenses", { label: "Hotel", amount: "1.234,50", spent_on: "2026-12-31", category: "travel" }, german),
      "/expenses",
    );
    const lunch = idOf(
      await post(erin, "/expenses", { label: "Mittagessen", amount: "12", spent_on: "2026-11-02", category: "meals" }),
      "/expenses",
    );
    const undated = idOf(await post(erin, "/expenses", { label: "Papier", amount: "3" }), "/expenses");
    assert.deepEqual(db.prepare("SELECT spent_on, category FROM expenses WHERE id = ?").get(hotel), {
      spent_on: "2026-12-31",
      category: "travel",
    });
    assert.deepEqual(db.prepare("SELECT spent_on, category FROM expenses WHERE id = ?").get(undated), { spent_on: null, category: "" });

    const list = await sendRequest(demo.origin, "GET", "/expenses?sort=spent_on&dir=desc", { jar: erin, headers: german }, demo.origin);
    assert.deepEqual(idsIn(list.body), [hotel, lunch, undated]);
    assert.match(list.body, /<td>31\.12\.2026<\/td><td>Reisen<\/td>/);
    assert.match(
      list.body,
      /<select id="filter-category" name="category"><option value="">Alle<\/option><option value="travel">Reisen<\/option>/,
    );
    assert.deepEqual(idsIn((await get(erin, "/expenses?category=meals")).body), [lunch]);
    assert.deepEqual(idsIn((await get(erin, "/expenses?spent_on_min=2026-12-01&spent_on_max=2026-12-31")).body), [hotel]);
    const refused = await post(erin, "/expenses", { label: "Taxi", amount: "20", spent_on: "2026-02-30", category: "fuel" });
    assert.equal(refused.status, 422);
    assert.match(refused.body, /data-error-for="spent_on"/);
    assert.match(refused.body, /data-error-for="category"/);
    assert.equal(idsIn((await get(erin, "/expenses")).body).length, 3, "nothing stored");
  });

  it("refuses a reimbursement before the expense's day beside both fields, through the form and a tool (issue 43, 3)", async () => {
    const fay = await signInOverHTTP(demo, "fay@example.com");
    const early = { label: "Taxi", amount: "20", spent_on: "2026-12-31", reimbursed_on: "2026-12-30" };
    const refused = await post(fay, "/expenses", early, { "Accept-Language": "de" });
    assert.equal(refused.status, 422);
    assert.match(refused.body, /data-error-for="reimbursed_on"[^>]*>Muss am oder nach „Datum“ liegen\.</);
    assert.match(refused.body, /data-error-for="spent_on"[^>]*>Muss am oder vor „Erstattet am“ liegen\.</);
    const token = /data-agent-token="([A-Za-z0-9_-]+)"/.exec(
      (await post(fay, "/account/agents", { name: "clerk", access: "write" })).body,
    )?.[1];
    const headers = { Authorization: `Bearer ${token ?? ""}`, "Content-Type": "application/json" };
    const call = await sendRequest(
      demo.origin,
      "POST",
      "/api/tools/expenses_create",
      { headers, body: JSON.stringify(early) },
      demo.origin,
    );
    assert.equal(call.status, 422, call.body);
    assert.match(JSON.parse(call.body).error, /^reimbursed_on: Must be on or after Date\. spent_on: Must be on or before Reimbursed on\.$/);
    assert.equal((db.prepare("SELECT count(*) AS n FROM expenses WHERE owner = ?").get("fay@example.com") as { n: number }).n, 0);
    assert.equal(idOf(await post(fay, "/expenses", { ...early, reimbursed_on: "2026-12-31" }), "/expenses").length > 0, true);
  });

  it("creates, lists, filters, edits and deletes expenses, each person seeing only their own", async () => {
    const lunch = idOf(await post(ada, "/expenses", { label: "Lunch with Bob", amount: "12.34" }), "/expenses");
    const train = idOf(await post(ada, "/expenses", { label: "Train ticket", amount: "1,234.56" }), "/expenses");
    const bobs = idOf(await post(bob, "/expenses", { label: "Bob's lunch", amount: "9" }), "/expenses");
    assert.deepEqual(db.prepare("SELECT owner, label, amount FROM expenses WHERE id = ?").get(train), {
      owner: "ada@example.com",
      label: "Train ticket",
      amount: 123456,
    });

    const list = await get(ada, "/expenses");
    assert.deepEqual(idsIn(list.body).sort(), [lunch, train].sort());
    assert.match(list.body, /€12\.34/);
    assert.deepEqual(idsIn((await get(bob, "/expenses")).body), [bobs]);
    assert.deepEqual(idsIn((await get(ada, "/expenses?label=lunch")).body), [lunch]);
    assert.deepEqual(idsIn((await get(ada, "/expenses?amount_min=100")).body), [train]);
    assert.deepEqual(idsIn((await get(ada, "/expenses?amount_max=12.34")).body), [lunch]);
    assert.equal((await get(ada, "/expenses?amount_min=abc")).status, 400);

    // Another person's record is the same 404 as an unknown id, for reading, editing and deleting.
    const unknown = await get(bob, "/expenses/AAAAAAAAAAAA");
    const foreign = await get(bob, `/expenses/${lunch}`);
    const same = (res: TestResponse, id: string): string =>
      res.body.replaceAll(id, "ID").replace(/Reference: [a-z2-7]{6}/, "Reference: REF");
    assert.deepEqual([foreign.status, same(foreign, lunch)], [unknown.status, same(unknown, "AAAAAAAAAAAA")]);
    assert.equal(foreign.status, 404);
    assert.equal((await post(bob, `/expenses/${lunch}`, { label: "mine now", amount: "1", version: "1" })).status, 404);
    assert.equal((await post(bob, `/expenses/${lunch}/delete`, {})).status, 404);

    const page = await get(ada, `/expenses/${lunch}`);
    assert.match(page.body, /name="label"[^>]*value="Lunch with Bob"/);
    assert.match(page.body, /name="amount"[^>]*value="12\.34"/);
    const saved = await post(ada, `/expenses/${lunch}`, { label: "Lunch", amount: "15", version: versionIn(page.body) });
    assert.equal(saved.location, `/expenses/${lunch}?saved=1`);
    assert.equal((db.prepare("SELECT amount FROM expenses WHERE id = ?").get(lunch) as { amount: number }).amount, 1500);

    const deleted = await post(ada, `/expenses/${train}/delete`, {});
    assert.equal(deleted.location, "/expenses?deleted=1");
    assert.deepEqual(idsIn((await get(ada, "/expenses")).body), [lunch]);
  });

  it("refuses a stale expense edit, showing the current values and keeping what was entered", async () => {
    const id = idOf(await post(ada, "/expenses", { label: "Taxi", amount: "20" }), "/expenses");
    const version = versionIn((await get(ada, `/expenses/${id}`)).body);
    assert.equal((await post(ada, `/expenses/${id}`, { label: "Taxi home", amount: "21", version })).status, 303);
    const stale = await post(ada, `/expenses/${id}`, { label: "Taxi to work", amount: "22", version });
    assert.equal(stale.status, 409);
    assert.match(stale.body, /data-outcome="stale"/);
    assert.match(stale.body, /name="label"[^>]*value="Taxi home"/);
    assert.match(stale.body, /data-entered-for="label">Taxi to work</);
    assert.notEqual(versionIn(stale.body), version);
    assert.deepEqual(db.prepare("SELECT label, amount FROM expenses WHERE id = ?").get(id), { label: "Taxi home", amount: 2100 });
  });

  it("answers bad input with a 4xx or an inline error, never a 500, and stores nothing", async () => {
    const id = idOf(await post(ada, "/expenses", { label: "Coffee", amount: "3.50" }), "/expenses");
    const version = versionIn((await get(ada, `/expenses/${id}`)).body);
    const before = count("expenses");
    for (const [form, status, hook] of [
      [{ label: "x", amount: "1", owner: "bob@example.com" }, 400, undefined],
      [{ label: "x", amount: "1", id: "abc" }, 400, undefined],
      [{ label: "x".repeat(121), amount: "1" }, 422, 'data-error-for="label"'],
      [{ label: "x", amount: "12.345" }, 422, 'data-error-for="amount"'],
      [{ label: "x", amount: "twelve" }, 422, 'data-error-for="amount"'],
      [{ label: "", amount: "1" }, 422, 'data-error-for="label"'],
    ] as const) {
      const res = await post(ada, "/expenses", form);
      assert.equal(res.status, status, JSON.stringify(form));
      if (hook !== undefined) {
        assert.ok(res.body.includes(hook), JSON.stringify(form));
        assert.ok(res.body.includes(`value="${form.amount}"`), "the entered value is kept");
      }
    }
    assert.equal((await post(ada, `/expenses/${id}`, { label: "x", amount: "1" })).status, 400, "missing version");
    assert.equal((await post(ada, `/expenses/${id}`, { label: "x", amount: "1", version: "v1" })).status, 400, "malformed version");
    assert.equal((await post(ada, `/expenses/${id}`, { label: "x", amount: "1", version, owner: "bob@example.com" })).status, 400);
    assert.equal((await post(ada, "/expenses", { label: "x", amount: "1" }, { Origin: "https://evil.example" })).status, 403);
    assert.equal(count("expenses"), before);
    assert.deepEqual(db.prepare("SELECT label, amount FROM expenses WHERE id = ?").get(id), { label: "Coffee", amount: 350 });
    assert.deepEqual(demo.errorLogs(), []);
  });

  it("merges two edits of a note's body from one version, and shows a title changed two ways as a conflict", async () => {
    const id = idOf(await post(ada, "/notes", { title: "Plan", body: "one\ntwo\nthree\nfour" }), "/notes");
    const version = versionIn((await get(ada, `/notes/${id}`)).body);
    assert.equal((await post(ada, `/notes/${id}`, { title: "Plan", body: "ONE\ntwo\nthree\nfour", version })).status, 303);
    assert.equal((await post(ada, `/notes/${id}`, { title: "Plan", body: "one\ntwo\nthree\r\nFOUR", version })).status, 303);
    const merged = await get(ada, `/notes/${id}`);
    assert.match(merged.body, />ONE\ntwo\nthree\nFOUR<\/textarea>/);

    const now = versionIn(merged.body);
    assert.equal((await post(ada, `/notes/${id}`, { title: "Plan A", body: "ONE\ntwo\nthree\nFOUR", version: now })).status, 303);
    const conflict = await post(ada, `/notes/${id}`, { title: "Plan B", body: "ONE\ntwo\nthree\nFOUR", version: now });
    assert.equal(conflict.status, 409);
    assert.match(conflict.body, /data-outcome="conflict"/);
    assert.match(conflict.body, /data-conflict="title"[\s\S]*Plan B[\s\S]*Plan A/);

    const events = db.prepare("SELECT type, actor, data FROM events WHERE stream = ? ORDER BY seq").all(`notes:${id}`) as {
      type: string;
      actor: string;
      data: string;
    }[];
    assert.deepEqual(
      events.map((e) => e.type),
      ["notes.created", "notes.updated", "notes.updated", "notes.updated", "notes.conflict"],
    );
    assert.ok(events.every((e) => e.actor === "human"));
    const titles = events.map((e) => (JSON.parse(e.data) as { values: { title?: string } }).values.title);
    assert.ok(titles.includes("Plan A") && titles.includes("Plan B"), "both titles are in the stream");
    assert.equal((db.prepare("SELECT title FROM notes WHERE id = ?").get(id) as { title: string }).title, "Plan A");

    assert.equal((await get(bob, `/notes/${id}`)).status, 404);
    assert.deepEqual(idsIn((await get(bob, "/notes")).body), []);

    const stored = count("events");
    for (const [form, status] of [
      [{ title: "x", body: "" }, 400],
      [{ title: "x", body: "", version: "999" }, 400],
      [{ title: "x", body: "", version: "0" }, 400],
      [{ title: "x".repeat(201), body: "", version: now }, 422],
      [{ title: "", body: "", version: now }, 422],
      [{ title: "x", body: "", version: now, owner: "bob@example.com" }, 400],
    ] as const) {
      assert.equal((await post(ada, `/notes/${id}`, form)).status, status, JSON.stringify(form).slice(0, 80));
    }
    assert.equal((await post(bob, `/notes/${id}`, { title: "x", body: "", version: now })).status, 404);
    assert.equal(count("events"), stored, "nothing appended");
  });

  it("shows a conflict of a note's longest body in three-byte characters with both sides, nothing lost", async () => {
    const text = (c: string): string => c.repeat(2000);
    const id = idOf(await post(ada, "/notes", { title: "計画", body: text("一") }), "/notes");
    const version = versionIn((await get(ada, `/notes/${id}`)).body);
    assert.equal((await post(ada, `/notes/${id}`, { title: "計画", body: text("二"), version })).status, 303);
    const conflict = await post(ada, `/notes/${id}`, { title: "計画", body: text("三"), version });
    assert.equal(conflict.status, 409);
    assert.match(conflict.body, /data-outcome="conflict"/);
    assert.ok(conflict.body.includes(`<pre data-conflict-mine>${text("三")}</pre>`), "what was typed is shown");
    assert.ok(conflict.body.includes(`<pre data-conflict-theirs>${text("二")}</pre>`), "what is stored is shown");
    assert.equal((db.prepare("SELECT body FROM notes WHERE id = ?").get(id) as { body: string }).body, text("二"));
    assert.deepEqual(demo.errorLogs(), []);
  });

  it("refuses a person's 21st line merge in a minute with 429 and Retry-After, in the demo's page, storing nothing", async () => {
    const dora = await signInOverHTTP(demo, "dora@example.com");
    const id = idOf(await post(dora, "/notes", { title: "Busy", body: "a\nb\nc" }), "/notes");
    const edit = async (body: string, version?: string): Promise<TestResponse> =>
      post(dora, `/notes/${id}`, { title: "Busy", body, version: version ?? versionIn((await get(dora, `/notes/${id}`)).body) });
    for (let n = 0; n < 20; n++) {
      const version = versionIn((await get(dora, `/notes/${id}`)).body);
      assert.equal((await edit(`x${n}\nb\nc`, version)).status, 303);
      assert.equal((await edit(`a\nb\nz${n}`, version)).status, 303, `line merge ${n + 1}`);
      assert.equal((await edit("a\nb\nc")).status, 303);
    }
    const version = versionIn((await get(dora, `/notes/${id}`)).body);
    assert.equal((await edit("x\nb\nc", version)).status, 303, "an edit that merges nothing still lands");
    const busy = await edit("a\nb\nz", version);
    assert.equal(busy.status, 429);
    assert.match(busy.headers["retry-after"] ?? "", /^[1-9][0-9]?$/);
    assert.match(busy.body, /data-status="429"/, "the demo's ErrorPage");
    assert.equal((db.prepare("SELECT body FROM notes WHERE id = ?").get(id) as { body: string }).body, "x\nb\nc");
    const line = /update notes: too many merged edits for this person/;
    for (let n = 0; n < 200 && !line.test(demo.logs()); n++) await sleep(50);
    assert.match(demo.logs(), line);
  });

  it("refuses an undeclared field without echoing its name into the page or the log", async () => {
    const name = "zz_injected_field_name";
    const refused = await post(ada, "/notes", { title: "x", body: "", [name]: "1" });
    assert.equal(refused.status, 400);
    assert.ok(!refused.body.includes(name), "not in the answer");
    // The demo's log reaches us through its stdout pipe, possibly after the answer: wait for the line.
    const line = /create notes: a field is not declared or is repeated/;
    for (let n = 0; n < 200 && !line.test(demo.logs()); n++) await sleep(50);
    assert.match(demo.logs(), line);
    assert.ok(!demo.logs().includes(name), "not in the log");
  });

  it("lets an agent with a write token list expenses and, after approval, create one, audited as agent:<name>", async () => {
    const minted = await post(ada, "/account/agents", { name: "ledger", access: "write" });
    const token = /data-agent-token="([A-Za-z0-9_-]+)"/.exec(minted.body)?.[1] ?? "";
    const call = (tool: string, args: unknown): Promise<TestResponse> =>
      sendRequest(
        demo.origin,
        "POST",
        `/api/tools/${tool}`,
        { headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" }, body: JSON.stringify(args) },
        demo.origin,
      );
    const listed = await sendRequest(demo.origin, "GET", "/api/tools", { headers: { Authorization: `Bearer ${token}` } }, demo.origin);
    assert.match(listed.body, /"expenses_create"/);
    const before = (JSON.parse((await call("expenses_list", {})).body) as { result: { items: { id: string; amount: string }[] } }).result;
    assert.ok(before.items.length > 0);
    assert.ok(before.items.every((item) => typeof item.amount === "string"));

    const held = await call("expenses_create", { label: "Agent lunch", amount: "7.50" });
    assert.equal(held.status, 202);
    const approval = (JSON.parse(held.body) as { approval_url: string }).approval_url;
    const page = await get(ada, approval);
    assert.match(page.body, /Create a record in Expenses\?/);
    assert.equal((await post(ada, new URL(approval).pathname, { decision: "approve" })).status, 200);
    const done = await call("expenses_create", { label: "Agent lunch", amount: "7.50" });
    assert.equal(done.status, 200, done.body);
    const { id } = (JSON.parse(done.body) as { result: { id: string } }).result;
    assert.deepEqual(db.prepare("SELECT owner, label, amount FROM expenses WHERE id = ?").get(id), {
      owner: "ada@example.com",
      label: "Agent lunch",
      amount: 750,
    });
    const audit = db.prepare("SELECT actor, data FROM events WHERE stream = 'audit:ada@example.com' AND type = 'tool.call'").all() as {
      actor: string;
      data: string;
    }[];
    assert.ok(
      audit.some(
        (e) =>
          e.actor === "agent:ledger" &&
          (JSON.parse(e.data) as { tool: string; outcome: string }).tool === "expenses_create" &&
          e.data.includes('"outcome":"ok"'),
      ),
    );
    assert.match((await get(ada, "/account/activity")).body, /agent:ledger/);
    // Bob's token lists only Bob's records.
    const bobMinted = await post(bob, "/account/agents", { name: "bobbot", access: "read" });
    const bobToken = /data-agent-token="([A-Za-z0-9_-]+)"/.exec(bobMinted.body)?.[1] ?? "";
    const bobList = await sendRequest(
      demo.origin,
      "POST",
      "/api/tools/expenses_list",
      { headers: { Authorization: `Bearer ${bobToken}`, "Content-Type": "application/json" }, body: "{}" },
      demo.origin,
    );
    assert.ok(!(JSON.parse(bobList.body) as { result: { items: { id: string }[] } }).result.items.some((item) => item.id === id));
    assert.equal(
      (
        await sendRequest(
          demo.origin,
          "POST",
          "/api/tools/expenses_create",
          { headers: { Authorization: `Bearer ${bobToken}`, "Content-Type": "application/json" }, body: '{"label":"x","amount":"1"}' },
          demo.origin,
        )
      ).status,
      403,
    );

    // A note the agent edits, after approval: its stream names each actor, human and agent.
    const note = idOf(await post(ada, "/notes", { title: "Shared", body: "a\nb" }), "/notes");
    const read = (JSON.parse((await call("notes_read", { id: note })).body) as { result: { version: number; body: string } }).result;
    assert.equal(read.body, "a\nb");
    const args = { id: note, version: read.version, body: "a\nb\nc" };
    const pending = await call("notes_update", args);
    assert.equal(pending.status, 202);
    const url = (JSON.parse(pending.body) as { approval_url: string }).approval_url;
    assert.equal((await post(ada, new URL(url).pathname, { decision: "approve" })).status, 200);
    assert.equal((await call("notes_update", args)).status, 200);
    const actors = (db.prepare("SELECT actor FROM events WHERE stream = ? ORDER BY seq").all(`notes:${note}`) as { actor: string }[]).map(
      (e) => e.actor,
    );
    assert.deepEqual(actors, ["human", "agent:ledger"]);
    assert.match((await get(ada, `/notes/${note}`)).body, />a\nb\nc<\/textarea>/);
  });

  it("reads and shows amounts in the request's locale", async () => {
    const id = idOf(await post(ada, "/de/expenses", { label: "Miete", amount: "1.234,56" }), "/expenses");
    assert.equal((db.prepare("SELECT amount FROM expenses WHERE id = ?").get(id) as { amount: number }).amount, 123456);
    assert.match((await get(ada, `/de/expenses/${id}`)).body, /name="amount"[^>]*value="1\.234,56"/);
    assert.match((await get(ada, `/fr/expenses/${id}`)).body, /name="amount"[^>]*value="1\u202f234,56"/);
    const wrong = await post(ada, "/de/expenses", { label: "Miete", amount: "12.34" });
    assert.equal(wrong.status, 422, "a German form reads '.' as a group separator, and 12.34 groups wrongly");
  });

  it("pages lists with a keyset cursor and sorts by a column", async () => {
    const carol = await signInOverHTTP(demo, "carol@example.com");
    const made: string[] = [];
    for (let n = 1; n <= 23; n++) made.push(idOf(await post(carol, "/expenses", { label: `item ${n}`, amount: String(n) }), "/expenses"));
    const first = await get(carol, "/expenses?sort=amount&dir=asc");
    assert.deepEqual(idsIn(first.body), made.slice(0, 20));
    const next = /rel="next" href="([^"]+)"/.exec(first.body)?.[1]?.replaceAll("&amp;", "&") ?? "";
    assert.match(next, /after=/);
    const second = await get(carol, next);
    assert.deepEqual(idsIn(second.body), made.slice(20));
    assert.doesNotMatch(second.body, /rel="next"/);
    assert.deepEqual(idsIn((await get(carol, "/expenses?sort=amount&dir=desc")).body).slice(0, 2), [made[22], made[21]]);
    assert.equal((await get(carol, "/expenses?sort=owner")).status, 400);
    assert.equal((await get(carol, "/expenses?after=not-a-cursor")).status, 400);
  });
});
