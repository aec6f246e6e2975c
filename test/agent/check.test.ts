/*
 * A write call is checked before its person is asked (issue 22): its
 * arguments, and where the tool declares a `Check` (a resource's generated
 * create, update and delete do) a dry run against the current state. A call
 * that cannot run is refused with the reason its run would give, over the
 * tools endpoint and over MCP alike, and no approval is requested or spent;
 * a call that can run waits for approval and then runs once. A tool without
 * a check behaves as before. A Mergeable update from an older version is
 * asked for, since it merges (whether a field conflicts shows only then).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { humanActor } from "../../lib/agent/index.ts";
import { Kind, Resource, ScopeKind, StoreKind } from "../../lib/manifest/index.ts";
import { MERGE_MAX_BEHIND } from "../../lib/manifest/store.ts";
import { SUBJECT, startTransportsApp, type TransportsApp } from "../_support/agent-transports.ts";
import { count } from "../_support/signin-app.ts";

const tasks = new Resource({
  Name: "tasks",
  Route: "/tasks",
  Store: StoreKind.Exclusive,
  Scope: ScopeKind.UserScoped,
  List: { Columns: [{ Field: "title" }] },
  Form: {
    Fields: [
      { Name: "title", Label: "tasks.title", Kind: Kind.Text, Required: true },
      { Name: "cost", Label: "tasks.cost", Kind: Kind.Money, Currency: "EUR" },
    ],
  },
});

const journal = new Resource({
  Name: "journal",
  Route: "/journal",
  Store: StoreKind.Mergeable,
  Scope: ScopeKind.UserScoped,
  List: { Columns: [{ Field: "headline" }] },
  Form: {
    Fields: [
      { Name: "headline", Label: "journal.headline", Kind: Kind.Text, Required: true },
      { Name: "entry", Label: "journal.entry", Kind: Kind.Textarea },
    ],
  },
});

const person = { owner: SUBJECT, actor: humanActor() };

/** The app with `tasks` mounted, a write token, and one task the person created and then edited (so its first version is stale). */
async function staleTask(t: Parameters<typeof startTransportsApp>[0]) {
  const app = await startTransportsApp(t, { resource: tasks });
  const store = app.mounted?.Store;
  assert.ok(store !== undefined);
  const token = app.mint("write", "claude");
  const { id, version: first } = store.create(person, { title: "Plan", cost: "12.00" });
  app.clock.advance(1000);
  const edited = store.update(person, id, first, { title: "Plan B" });
  assert.equal(edited.kind, "ok");
  const current = edited.kind === "ok" ? edited.version : 0;
  assert.notEqual(current, first);
  return { app, store, token, id, first, current };
}

const approvals = (app: TransportsApp, status?: string): number =>
  status === undefined ? count(app.db, "agent_approvals") : count(app.db, "agent_approvals", "status = ?", status);
const idOf = (url: string): string => url.split("/").pop() ?? "";
const outcomes = (app: TransportsApp, tool: string): unknown[] =>
  app
    .audit()
    .filter((e) => e.Data["tool"] === tool)
    .map((e) => [e.Data["outcome"], e.Data["via"] ?? "tools"]);

describe("A stale update, before the person is asked", () => {
  it("is refused with 409 and the reason over the tools endpoint, and as a tool error over MCP, requesting no approval", async (t) => {
    const { app, token, id, first, current } = await staleTask(t);
    const args = { id, version: first, title: "Plan C" };
    const reason = `update tasks: changed since version ${first}; read it again (now version ${current})`;

    const overHTTP = await app.tools(token, "tasks_update", args);
    assert.deepEqual([overHTTP.status, JSON.parse(overHTTP.body)], [409, { error: reason }]);
    const overMCP = await app.mcpCall(token, "tasks_update", args);
    assert.deepEqual(overMCP["result"], { content: [{ type: "text", text: reason }], isError: true });

    assert.equal(approvals(app), 0);
    assert.deepEqual(outcomes(app, "tasks_update"), [
      ["refused", "tools"],
      ["refused", "mcp"],
    ]);
  });

  it("is refused when an approval was given before the record changed, and leaves that approval unspent", async (t) => {
    const { app, store, token, id, current } = await staleTask(t);
    const args = { id, version: current, title: "Plan C" };
    const held = await app.tools(token, "tasks_update", args);
    assert.equal(held.status, 202, held.body);
    app.approve(idOf(JSON.parse(held.body).approval_url));
    app.clock.advance(1000);
    assert.equal(store.update(person, id, current, { title: "Plan D" }).kind, "ok");

    const refused = await app.tools(token, "tasks_update", args);
    assert.equal(refused.status, 409, refused.body);
    assert.equal(approvals(app, "approved"), 1, "the approval is not spent on a call that cannot run");
    assert.equal(store.get(SUBJECT, id)?.record.values["title"], "Plan D");
  });
});

describe("A current update", () => {
  it("requests an approval over either transport and, once approved, runs exactly once", async (t) => {
    const { app, store, token, id, current } = await staleTask(t);
    const args = { id, version: current, title: "Plan C" };

    const overMCP = await app.mcpCall(token, "tasks_update", args);
    const url = (overMCP["result"] as { structuredContent: { approval_url: string } }).structuredContent.approval_url;
    const held = await app.tools(token, "tasks_update", args);
    assert.equal(held.status, 202, held.body);
    assert.equal(JSON.parse(held.body).approval_url, url, "one pending request for one call");
    assert.equal(approvals(app, "pending"), 1);

    app.approve(idOf(url));
    app.clock.advance(1000);
    const ran = await app.tools(token, "tasks_update", args);
    assert.equal(ran.status, 200, ran.body);
    const after = store.get(SUBJECT, id);
    assert.equal(after?.record.values["title"], "Plan C");
    assert.deepEqual(JSON.parse(ran.body), { result: { id, version: after?.version } });

    // The same call again is stale now: refused at once, nothing run and nobody asked.
    const again = await app.tools(token, "tasks_update", args);
    assert.equal(again.status, 409, again.body);
    assert.equal(approvals(app), 1);
    assert.deepEqual(outcomes(app, "tasks_update"), [
      ["approval_required", "mcp"],
      ["approval_required", "tools"],
      ["started", "tools"],
      ["ok", "tools"],
      ["refused", "tools"],
    ]);
  });
});

describe("A Mergeable update, before the person is asked", () => {
  it("is asked for from an older version (it merges), refused from an unknown one (400) or one too far behind (409)", async (t) => {
    const app = await startTransportsApp(t, { resource: journal });
    const store = app.mounted?.Store;
    assert.ok(store !== undefined);
    const token = app.mint("write", "claude");
    const { id, version: first } = store.create(person, { headline: "Plan", entry: "one\ntwo" });
    let head = first;
    for (let n = 1; n <= MERGE_MAX_BEHIND; n++) {
      const edited = store.update(person, id, head, { headline: `Plan ${n}` });
      if (edited.kind === "ok") head = edited.version;
    }
    assert.equal(head - first, MERGE_MAX_BEHIND);

    const merging = await app.tools(token, "journal_update", { id, version: first, entry: "ONE\ntwo" });
    assert.equal(merging.status, 202, merging.body);
    const unknown = await app.tools(token, "journal_update", { id, version: head + 1, entry: "x" });
    assert.deepEqual([unknown.status, JSON.parse(unknown.body)], [400, { error: "update journal: unknown version" }]);
    assert.equal(store.update(person, id, head, { headline: "Plan B" }).kind, "ok");
    const tooFar = await app.tools(token, "journal_update", { id, version: first, entry: "x" });
    assert.equal(tooFar.status, 409, tooFar.body);
    assert.equal(approvals(app), 1);
  });
});

describe("The generated tools' other checks, before the person is asked", () => {
  it("refuses an amount the form would refuse (422, as the form), and an unknown record's update or delete (404), requesting no approval", async (t) => {
    const { app, token, id, current } = await staleTask(t);
    const badAmount = await app.tools(token, "tasks_create", { title: "Taxi", cost: "twelve" });
    assert.equal(badAmount.status, 422, badAmount.body);
    assert.match(JSON.parse(badAmount.body).error, /^cost: /);
    const badUpdate = await app.tools(token, "tasks_update", { id, version: current, cost: "1.234" });
    assert.equal(badUpdate.status, 422, badUpdate.body);
    assert.match(JSON.parse(badUpdate.body).error, /^cost: /);
    for (const [tool, args] of [
      ["tasks_update", { id: "nope", version: current, title: "x" }],
      ["tasks_delete", { id: "nope" }],
    ] as const) {
      const res = await app.tools(token, tool, args);
      assert.deepEqual([res.status, JSON.parse(res.body)], [404, { error: "tasks: no such record" }], tool);
    }
    // Another person's record is as unknown as a missing one.
    const theirs = app.mounted?.Store.create({ owner: "bob@example.com", actor: humanActor() }, { title: "Bob's", cost: null });
    assert.equal((await app.tools(token, "tasks_delete", { id: theirs?.id ?? "" })).status, 404);
    assert.equal(approvals(app), 0);
  });
});

describe("A check that fails unexpectedly", () => {
  it("answers 500 with a reference it logs, asking nobody", async (t) => {
    const { app, token, id } = await staleTask(t);
    app.db.exec("DROP TABLE tasks");
    const failed = await app.tools(token, "tasks_delete", { id });
    assert.equal(failed.status, 500, failed.body);
    const { ref } = JSON.parse(failed.body) as { ref: string };
    assert.ok(JSON.stringify(app.log.lines()).includes(ref), "logged under its reference");
    assert.equal(approvals(app), 0);
    assert.deepEqual(outcomes(app, "tasks_delete"), [["failed", "tools"]]);
  });
});

describe("A write tool without a check", () => {
  it("requests an approval for any well-formed call, as before, and runs the approved call once", async (t) => {
    const app = await startTransportsApp(t);
    const token = app.mint("write", "claude");
    const held = await app.tools(token, "counter_add", { by: 2 });
    assert.equal(held.status, 202, held.body);
    app.approve(idOf(JSON.parse(held.body).approval_url));
    const ran = await app.tools(token, "counter_add", { by: 2 });
    assert.deepEqual([ran.status, JSON.parse(ran.body)], [200, { result: { added: 2 } }]);
    assert.equal((await app.tools(token, "counter_add", { by: 2 })).status, 202, "a further call needs a new approval");
    assert.deepEqual(outcomes(app, "counter_add"), [
      ["approval_required", "tools"],
      ["started", "tools"],
      ["ok", "tools"],
      ["approval_required", "tools"],
    ]);
  });
});
