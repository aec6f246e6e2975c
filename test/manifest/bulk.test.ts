/*
 * Bulk changes (issue 43, 4; lib/manifest README "Bulk changes"): from the list page, records are deleted or have one
 * field set, in one transaction with one attributed event per record (the same events as a single write's, so the
 * record's history shows them); another person's id, more than BULK_MAX ids, a value the form refuses, a rule broken
 * by one record and a record others refer to are refused naming them, nothing changed. An agent's bulk call is one
 * approval whose preview lists every record, before → after; the repeated call applies it to the records as they are then.
 */
import assert from "node:assert/strict";
import { IncomingMessage } from "node:http";
import { Socket } from "node:net";
import { describe, it, type TestContext } from "node:test";
import { humanActor, ToolRegistry } from "../../lib/agent/index.ts";
import * as events from "../../lib/events/index.ts";
import { EventStore } from "../../lib/events/index.ts";
import { ctxFrom, type RenderFunc } from "../../lib/index.ts";
import { Kind, Resource, ScopeKind, StoreKind, isResourceView, mountResource } from "../../lib/manifest/index.ts";
import { applySchema } from "../../lib/db/index.ts";
import { BULK_MAX, BulkRefused, bulkWriter } from "../../lib/manifest/bulk.ts";
import { wording } from "../../lib/manifest/calls.ts";
import { ruleCheck } from "../../lib/manifest/rules.ts";
import { exclusiveStore, mergeableStore } from "../../lib/manifest/store.ts";
import { resourceSchema } from "../../lib/manifest/index.ts";
import { open, tempFile } from "../_support/db.ts";
import { call, teamWorld } from "./team-world.ts";
import { SUBJECT, startTransportsApp } from "../_support/agent-transports.ts";
import { count, startSigninApp, type CookieJar, type SigninApp } from "../_support/signin-app.ts";

const trips = (store: StoreKind): Resource =>
  new Resource({
    Name: "trips",
    Route: "/trips",
    Store: store,
    Scope: ScopeKind.UserScoped,
    List: { Columns: [{ Field: "title" }, { Field: "seats" }] },
    Form: {
      Fields: [
        { Name: "title", Label: "trips.title", Kind: Kind.Text, Required: true },
        { Name: "start", Label: "trips.start", Kind: Kind.Date },
        { Name: "end", Label: "trips.end", Kind: Kind.Date },
        { Name: "seats", Label: "trips.seats", Kind: Kind.Integer },
      ],
    },
    Rules: [{ Field: "end", After: "start" }],
  });

const items = new Resource({
  Name: "items",
  Route: "/items",
  Store: StoreKind.Exclusive,
  Scope: ScopeKind.UserScoped,
  List: { Columns: [{ Field: "name" }] },
  Form: { Fields: [{ Name: "name", Label: "items.name", Kind: Kind.Text, Required: true }] },
});

const loans = new Resource({
  Name: "loans",
  Route: "/loans",
  Store: StoreKind.Exclusive,
  Scope: ScopeKind.UserScoped,
  List: { Columns: [{ Field: "item" }] },
  Form: { Fields: [{ Name: "item", Label: "loans.item", Kind: Kind.Reference, References: "items", Required: true }] },
});

const render: RenderFunc = (_req, res, _view, data) => {
  if (!isResourceView(data)) throw new Error("test render: not a resource view");
  res.statusCode = data.Status;
  res.setHeader("Content-Type", "text/html; charset=utf-8");
  res.end(`<!doctype html><title>${data.Title}</title>${data.Body.toString()}`);
};

type Mounted = ReturnType<typeof mountResource>;

async function start(t: TestContext, resources: Resource[]): Promise<SigninApp & { mounted: Mounted[] }> {
  const mounted: Mounted[] = [];
  const app = await startSigninApp(t, {
    render,
    schema: [...events.Schema],
    origin: "http://bulk.test",
    extend: (mux, auth, db) => {
      const shared = { db, mux, tools: new ToolRegistry(), events: new EventStore(db), origin: "http://bulk.test", ctxFrom };
      for (const r of resources) mounted.push(mountResource(r, { ...shared, requireSession: auth.RequireSession }));
    },
  });
  return Object.assign(app, { mounted });
}

const ada = { owner: SUBJECT, actor: humanActor() };
// The framework's English catalog, as a tool's refusal is worded.
const english = wording(undefined);
const bob = { owner: "bob@example.com", actor: humanActor() };

// Posts a bulk form: `ids` repeated, as the checked boxes are.
function bulk(app: SigninApp, jar: CookieJar, route: string, fields: Record<string, string>, ids: readonly string[]) {
  const body = new URLSearchParams([...Object.entries(fields), ...ids.map((id): [string, string] => ["ids", id])]).toString();
  return app.request("POST", `${route}/bulk`, {
    jar,
    headers: { Origin: app.origin, "Content-Type": "application/x-www-form-urlencoded" },
    body,
  });
}

const eventsOf = (app: SigninApp, type: string) =>
  app.db.prepare("SELECT stream, actor, subject, data FROM events WHERE type = ? ORDER BY stream").all(type) as {
    stream: string;
    actor: string;
    subject: string;
    data: string;
  }[];

describe("bulk changes: the bound", () => {
  it("BULK_MAX is 100, five list pages", () => {
    assert.equal(BULK_MAX, 100);
  });
});

for (const store of [StoreKind.Exclusive, StoreKind.Mergeable]) {
  describe(`bulk changes: one transaction (${store})`, () => {
    // A database with trips' table and `store` over it, its rules weighed in the write's transaction as mount.ts gives
    // them (trips refer to nothing).
    const opened = (t: TestContext) => {
      const db = open(t, tempFile(t));
      applySchema(db, events.Schema);
      const spec = trips(store);
      applySchema(db, resourceSchema(spec));
      const log = new EventStore(db);
      const rules = ruleCheck(spec, () => () => undefined);
      const records =
        store === StoreKind.Exclusive ? exclusiveStore(db, spec, log, undefined, rules) : mergeableStore(db, spec, log, undefined, rules);
      return { db, spec, records };
    };

    it("rolls every record back when one is refused inside the write, and tells of none", (t) => {
      const { db, spec, records } = opened(t);
      const told: string[] = [];
      const apply = bulkWriter(db, spec, records, (_who, done) => told.push(done.id));
      const ids = ["Lisbon", "Porto"].map((title) => records.create(ada, { title }).id);
      const seats = spec.Form.Fields.find((f) => f.Name === "seats")!;
      const rows = count(db, "events");
      // The third is gone by the time the write runs (deleted since it was weighed).
      assert.throws(
        () => apply(ada, { action: "delete", ids: [...ids, "gone00000000"] }, english),
        (e: unknown) => e instanceof BulkRefused && e.status === 404 && e.reasons[0] === "no such record: gone00000000",
      );
      assert.throws(() => apply(ada, { action: "set", ids: [...ids, "gone00000000"], field: seats, value: 3 }, english), BulkRefused);
      // A session ended meanwhile commits nothing (store.ts writeTransaction).
      assert.throws(
        () => apply({ ...ada, stillHeld: () => false }, { action: "delete", ids }, english),
        /bulk trips: the session or token of this request has ended/,
      );
      assert.equal(count(db, "trips"), 2);
      assert.equal(count(db, "events"), rows, "no event");
      assert.deepEqual(told, []);
      assert.deepEqual(
        apply(ada, { action: "delete", ids }, english).map((d) => [d.id, d.change]),
        ids.map((id) => [id, "deleted"]),
      );
      assert.deepEqual(told, ids, "told once committed");
    });

    it("words a rule broken inside the write as a single write's call does, naming the record", (t) => {
      const { db, spec, records } = opened(t);
      const apply = bulkWriter(db, spec, records, () => {});
      const id = records.create(ada, { title: "Lisbon", start: "2026-03-10", end: "2026-03-12" }).id;
      const end = spec.Form.Fields.find((f) => f.Name === "end")!;
      // Not weighed first (`weighBulk`), as a record changed since it was: the store refuses it in the transaction.
      assert.throws(
        () => apply(ada, { action: "set", ids: [id], field: end, value: "2026-03-01" }, english),
        (e: unknown) =>
          e instanceof BulkRefused &&
          e.status === 422 &&
          e.reasons.length === 1 &&
          /^[^:]+: end: Must be after .+\. start: /.test(e.reasons[0] ?? "") &&
          e.reasons[0]!.startsWith(`${id}: `),
      );
      assert.equal(records.get(SUBJECT, id)?.record.values["end"], "2026-03-12", "nothing changed");
    });
  });

  describe(`bulk changes from the list page (${store})`, () => {
    it("deletes three selected records in one request, one attributed event each, and says how many", async (t) => {
      const app = await start(t, [trips(store)]);
      const [trip] = app.mounted;
      const ids = ["Lisbon", "Porto", "Faro", "Braga"].map((title) => trip!.Store.create(ada, { title }).id);
      const theirs = trip!.Store.create(bob, { title: "Bob's" }).id;
      const jar = await app.signIn(SUBJECT);
      const list = await app.request("GET", "/trips", { jar });
      assert.equal(list.status, 200, list.body);
      for (const id of ids)
        assert.match(
          list.body,
          new RegExp(`<input type="checkbox" name="ids" value="${id}" form="bulk-trips" data-bulk-select aria-label="Select [A-Za-z]+">`),
        );
      assert.match(list.body, /<input type="checkbox" data-bulk-all aria-label="Select all records on this page">/);
      assert.match(list.body, /<form id="bulk-trips" class="card bulk" method="post" action="\/trips\/bulk" data-bulk>/);
      assert.match(list.body, /<label for="bulk-trips-value">New value<\/label>/);

      const res = await bulk(app, jar, "/trips", { action: "delete" }, ids.slice(0, 3));
      assert.equal(res.status, 303, res.body);
      assert.equal(res.headers.location, "/trips?bulk_deleted=3");
      const after = await app.request("GET", res.headers.location ?? "", { jar });
      assert.match(after.body, /<div class="card notice ok" role="status" data-outcome="bulk.deleted"><p>Records deleted: 3\.<\/p>/);
      assert.equal(count(app.db, "trips"), 2, "the fourth and Bob's stay");
      assert.ok(trip!.Store.get(SUBJECT, ids[3]!) !== undefined && trip!.Store.get(bob.owner, theirs) !== undefined);
      const deleted = eventsOf(app, "trips.deleted");
      assert.deepEqual(
        deleted.map((e) => e.stream),
        ids
          .slice(0, 3)
          .map((id) => `trips:${id}`)
          .sort(),
      );
      for (const e of deleted) assert.deepEqual([e.actor, e.subject], ["human", SUBJECT]);
    });

    it("sets one field on three records, each change in its history before → after", async (t) => {
      const app = await start(t, [trips(store)]);
      const [trip] = app.mounted;
      const ids = ["Lisbon", "Porto", "Faro"].map((title, n) => trip!.Store.create(ada, { title, seats: n }).id);
      const jar = await app.signIn(SUBJECT);
      const res = await bulk(app, jar, "/trips", { action: "set", field: "seats", value: "4" }, ids);
      assert.equal(res.status, 303, res.body);
      assert.equal(res.headers.location, "/trips?bulk_updated=3");
      for (const id of ids) assert.equal(trip!.Store.get(SUBJECT, id)?.record.values["seats"], 4);
      const updated = eventsOf(app, "trips.updated");
      assert.equal(updated.length, 3);
      for (const e of updated) assert.deepEqual([e.actor, e.subject], ["human", SUBJECT]);
      const page = await app.request("GET", `/trips/${ids[1]}`, { jar });
      assert.match(
        page.body,
        /<tr data-change="seats">.*?<td data-before><span dir="auto">1<\/span><\/td><td data-after><span dir="auto">4<\/span><\/td>/s,
      );
    });
  });
}

describe("bulk changes refused: nothing changed, the records named", () => {
  it("refuses another person's id (404 naming it), more than BULK_MAX ids, a bad value, a broken rule", async (t) => {
    const app = await start(t, [trips(StoreKind.Exclusive)]);
    const [trip] = app.mounted;
    const mine = ["Lisbon", "Porto", "Faro"].map((title) => trip!.Store.create(ada, { title, start: "2026-05-01", end: "2026-06-30" }).id);
    const early = trip!.Store.create(ada, { title: "Evora", start: "2026-05-01", end: "2026-05-15" }).id;
    const theirs = trip!.Store.create(bob, { title: "Bob's" }).id;
    const jar = await app.signIn(SUBJECT);
    const before = { rows: count(app.db, "trips"), events: count(app.db, "events") };
    const unchanged = (): void => {
      assert.equal(count(app.db, "trips"), before.rows);
      assert.equal(count(app.db, "events"), before.events, "no event");
    };

    const foreign = await bulk(app, jar, "/trips", { action: "delete" }, [...mine, theirs]);
    assert.equal(foreign.status, 404, foreign.body);
    assert.match(foreign.body, new RegExp(`data-outcome="bulk.refused".*<li data-bulk-refused>no such record: ${theirs}</li>`, "s"));
    unchanged();

    const many = Array.from({ length: BULK_MAX + 1 }, (_, n) => `unknown${String(n).padStart(5, "0")}`);
    const over = await bulk(app, jar, "/trips", { action: "delete" }, many);
    assert.equal(over.status, 400, over.body);
    assert.match(over.body, /ids: at most 100 records at once, 101 given/);
    // BULK_MAX ids are read (and found not to be the person's): the bound is BULK_MAX, not lower.
    assert.equal((await bulk(app, jar, "/trips", { action: "delete" }, many.slice(1))).status, 404);

    const bad = await bulk(app, jar, "/trips", { action: "set", field: "seats", value: "many" }, mine);
    assert.equal(bad.status, 422, bad.body);
    assert.match(bad.body, /<li data-bulk-refused>seats: Enter a whole number, such as 12\.<\/li>/);
    const unknown = await bulk(app, jar, "/trips", { action: "set", field: "owner", value: "x" }, mine);
    assert.equal(unknown.status, 400, unknown.body);
    assert.match(unknown.body, /field: not one of title, start, end, seats/);
    const stray = await bulk(app, jar, "/trips", { action: "delete", version: "1" }, mine);
    assert.equal(stray.status, 400, stray.body);

    // One record of four would end before it starts: all refused, that one named with both fields.
    const rule = await bulk(app, jar, "/trips", { action: "set", field: "start", value: "2026-05-20" }, [...mine, early]);
    assert.equal(rule.status, 422, rule.body);
    const reasons = [...rule.body.matchAll(/<li data-bulk-refused>([^<]*)<\/li>/g)].map((m) => m[1]);
    assert.deepEqual(reasons, [`&quot;Evora&quot; (${early}): end: Must be after trips.start. start: Must be before trips.end.`]);
    unchanged();
    assert.equal(trip!.Store.get(SUBJECT, mine[0]!)?.record.values["start"], "2026-05-01");

    // SPEC §4.2: behind cross-origin protection as every write.
    const cross = await app.request("POST", "/trips/bulk", {
      jar,
      headers: { Origin: "http://evil.test" },
      form: { action: "delete", ids: mine[0]! },
    });
    assert.equal(cross.status, 403, cross.body);
    unchanged();
  });

  it("refuses deleting records others refer to (OnDelete refuse), naming them", async (t) => {
    const app = await start(t, [items, loans]);
    const [item, loan] = app.mounted;
    const [drill, saw, plane] = ["Drill", "Saw", "Plane"].map((name) => item!.Store.create(ada, { name }).id);
    loan!.Store.create(ada, { item: saw! });
    const jar = await app.signIn(SUBJECT);
    const res = await bulk(app, jar, "/items", { action: "delete" }, [drill!, saw!, plane!]);
    assert.equal(res.status, 409, res.body);
    assert.match(res.body, new RegExp(`<li data-bulk-refused>&quot;Saw&quot; \\(${saw}\\): loans refer to this record \\(field item\\)`));
    assert.equal(count(app.db, "items"), 3, "nothing deleted");
  });
});

describe("bulk changes by an agent: one approval listing every record", () => {
  it("asks once, previews each record before → after, then applies to the records as they are (last writer)", async (t) => {
    const app = await startTransportsApp(t, { resource: trips(StoreKind.Exclusive) });
    const store = app.mounted!.Store;
    const ids = ["Lisbon", "Porto", "Faro"].map((title) => store.create(ada, { title, seats: 2 }).id);
    const token = app.mint("write", "claude");
    const args = { action: "set", ids: ids.join(","), field: "seats", value: "5" };
    const approvals = count(app.db, "agent_approvals");

    const held = await app.tools(token, "trips_bulk", args);
    assert.equal(held.status, 202, held.body);
    assert.equal(count(app.db, "agent_approvals"), approvals + 1, "one approval for three records");
    const def = app.mounted!.Tools.find((d) => d.Name === "trips_bulk");
    const preview = def?.Preview?.({ Args: new Map(Object.entries(args)), Subject: SUBJECT }, new IncomingMessage(new Socket()));
    assert.equal(preview?.Kind, "update");
    assert.equal(preview?.Title, "Records: 3");
    assert.deepEqual(
      preview?.Fields.map((f) => [f.Field, f.Label, f.Before, f.Value]),
      ["Lisbon", "Porto", "Faro"].map((title, n) => [ids[n], `${title} · trips.seats`, "2", "5"]),
    );

    // Changed after the approval: the value is set on it as it is then, and its event keeps what it replaced.
    const at = store.get(SUBJECT, ids[1]!)?.version ?? 0;
    assert.equal(store.update(ada, ids[1]!, at, { seats: 3 }).kind, "ok");
    app.approve(String(JSON.parse(held.body).approval_url).split("/").pop() ?? "");
    const ran = await app.tools(token, "trips_bulk", args);
    assert.equal(ran.status, 200, ran.body);
    assert.deepEqual(JSON.parse(ran.body).result ?? JSON.parse(ran.body), { updated: ids });
    const agent = app.db
      .prepare("SELECT stream, actor, data FROM events WHERE type = 'trips.updated' AND actor != 'human' ORDER BY stream")
      .all() as { stream: string; actor: string; data: string }[];
    assert.equal(agent.length, 3);
    for (const e of agent) {
      assert.match(e.actor, /^agent:claude/);
      assert.ok(typeof JSON.parse(e.data).approval === "string", "the approval that allowed it");
    }
    const changed = agent.find((e) => e.stream === `trips:${ids[1]}`);
    assert.deepEqual(JSON.parse(changed?.data ?? "{}").before, { seats: 3 });

    // Another person's id: refused before anyone is asked, over the tools endpoint and MCP.
    const theirs = store.create(bob, { title: "Bob's" }).id;
    const refused = await app.tools(token, "trips_bulk", { action: "delete", ids: `${ids[0]} ${theirs}` });
    assert.equal(refused.status, 404, refused.body);
    assert.match(JSON.parse(refused.body).error, new RegExp(`no such record: ${theirs}`));
    const overMCP = (await app.mcpCall(token, "trips_bulk", { action: "delete", ids: theirs }))["result"] as {
      isError: boolean;
      content: { text: string }[];
    };
    assert.equal(overMCP.isError, true);
    assert.match(overMCP.content[0]?.text ?? "", /no such record/);
    assert.equal(count(app.db, "agent_approvals"), approvals + 1, "no one asked for a call that cannot run");
  });
});

describe("bulk changes of a team's records", () => {
  it("lets a member change them, refuses a viewer's (403) and a stranger's (404), by form and by tool", async (t) => {
    const world = await teamWorld(t);
    const { app, team, jars } = world;
    const made = await Promise.all(["Order oak", "Plane boards"].map((title) => app.post(jars.ann, `/teams/${team}/tasks`, { title })));
    const ids = made.map((m) => m.location?.split("/").pop() ?? "");
    const rows = () => app.db.prepare("SELECT id, title, done FROM tasks ORDER BY id").all();
    const before = rows();
    const route = `/teams/${team}/tasks/bulk`;
    assert.equal((await app.post(jars.cat, route, { action: "delete", ids: ids[0]! })).status, 403, "a viewer");
    assert.equal((await app.post(jars.dan, route, { action: "delete", ids: ids[0]! })).status, 404, "not a member");
    const viewer = await call(world, "cat@example.com", "tasks_bulk", { team, action: "delete", ids: ids.join(",") });
    assert.equal(viewer.kind === "refused" && viewer.status, 403);
    assert.deepEqual(rows(), before);
    const done = await app.post(jars.bob, route, { action: "set", field: "done", value: "1", ids: ids[1]! });
    assert.equal(done.status, 303);
    assert.equal(done.location, `/teams/${team}/tasks?bulk_updated=1`);
    const event = app.db.prepare("SELECT actor, subject FROM events WHERE type = 'tasks.updated'").all();
    assert.deepEqual(event, [{ actor: "human", subject: "bob@example.com" }], "attributed to the member");
  });
});
