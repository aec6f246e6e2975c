/*
 * Records from a job (lib/manifest README "Records from a job"): a job started on lib/jobs' Registry reads and changes a
 * resource's records through `MountedResource.For(person)`, checked as that person's own form request is: a team
 * viewer's job is refused the write the form refuses (403, the same reason, nothing written), a person's job reaches
 * their records only, and every change is attributed (actor "human" and the starter, or "agent:system" for scheduled
 * work and the person it acts for).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { discardLogger } from "../../lib/http/index.ts";
import { Registry, Status, type Job, type JobFunc } from "../../lib/jobs/index.ts";
import { Kind, Resource, ScopeKind, StoreKind, type MountedResource } from "../../lib/manifest/index.ts";
import { viewerRefusal } from "../../lib/manifest/scope.ts";
import type { TeamsApp } from "../teams/harness.ts";
import { teamWorld } from "./team-world.ts";

/** A person's own errands (UserScoped): no one else reads or changes them. */
const errands = new Resource({
  Name: "errands",
  Route: "/errands",
  Store: StoreKind.Exclusive,
  Scope: ScopeKind.UserScoped,
  List: { Columns: [{ Field: "title" }, { Field: "done" }] },
  Form: {
    Fields: [
      { Name: "title", Label: "errands.title", Kind: Kind.Text, Required: true, MaxLength: 20 },
      { Name: "done", Label: "errands.done", Kind: Kind.Boolean },
    ],
  },
});

/** Starts `fn` for `owner` on a fresh registry and resolves with the job once it finished. */
async function runJob(owner: string, fn: JobFunc): Promise<Job> {
  const jobs = new Registry(discardLogger);
  const started = jobs.Start(owner, "records", fn);
  let job = jobs.Get(started.ID, owner);
  while (job?.Status === Status.Running) {
    await new Promise((turn) => setImmediate(turn));
    job = jobs.Get(started.ID, owner);
  }
  jobs.Shutdown();
  assert.ok(job, "the job is still readable once finished");
  return job;
}

/** Clears the team's done tasks as `person` (the job the demo's "Clear done tasks" runs). */
function clearDone(tasks: MountedResource, person: string, team: string, scheduled = false): JobFunc {
  return async () => {
    const records = tasks.For(person, { Team: team, Scheduled: scheduled });
    for (const record of records.list({ filters: [{ field: "done", equals: 1 }] }).records) records.delete(record.id);
  };
}

const rows = (app: TeamsApp, table: string): unknown[] => app.db.prepare(`SELECT * FROM ${table} ORDER BY created_at, id`).all();
const stream = (app: TeamsApp, resource: string, id: string): unknown[] =>
  app.db.prepare("SELECT type, actor, subject FROM events WHERE stream = ? ORDER BY seq").all(`${resource}:${id}`);

describe("MountedResource.For in a job", () => {
  it("changes the rows as the person who started it: each event's actor human, its subject the starter", async (t) => {
    const { app, team, jars, resources } = await teamWorld(t);
    const tasks = resources.get("tasks")!;
    const open = await app.post(jars.ann, `/teams/${team}/tasks`, { title: "Order oak" });
    const done = await app.post(jars.ann, `/teams/${team}/tasks`, { title: "Plane boards", done: "1" });
    const [openID, doneID] = [open.location?.split("/").pop() ?? "", done.location?.split("/").pop() ?? ""];
    const job = await runJob("bob@example.com", async () => {
      const records = tasks.For("bob@example.com", { Team: team });
      const found = records.get(openID);
      assert.ok(found);
      assert.equal(records.update(openID, found.version, { done: true }).kind, "ok");
      records.create({ title: "Sweep the floor" });
    });
    assert.equal(job.Status, Status.Done, job.Err);
    const titles = (app.db.prepare("SELECT title, done, author FROM tasks ORDER BY title").all() as object[]).map((r) => ({ ...r }));
    assert.deepEqual(titles, [
      { title: "Order oak", done: 1, author: "ann@example.com" },
      { title: "Plane boards", done: 1, author: "ann@example.com" },
      { title: "Sweep the floor", done: 0, author: "bob@example.com" },
    ]);
    assert.deepEqual(stream(app, "tasks", openID), [
      { type: "tasks.created", actor: "human", subject: "ann@example.com" },
      { type: "tasks.updated", actor: "human", subject: "bob@example.com" },
    ]);
    const made = String((app.db.prepare("SELECT id FROM tasks WHERE title = ?").get("Sweep the floor") as { id: string }).id);
    assert.deepEqual(stream(app, "tasks", made), [{ type: "tasks.created", actor: "human", subject: "bob@example.com" }]);
    // Scheduled work acts for the person it names, as the application's agent: "agent:system" in the audit.
    const swept = await runJob("ann@example.com", clearDone(tasks, "ann@example.com", team, true));
    assert.equal(swept.Status, Status.Done, swept.Err);
    assert.deepEqual(stream(app, "tasks", doneID).at(-1), { type: "tasks.deleted", actor: "agent:system", subject: "ann@example.com" });
    assert.equal(stream(app, "tasks", openID).length, 3, "both done tasks went: the updated one too");
  });

  it("refuses a team viewer's job the write the form refuses them (403, the same reason), writing nothing", async (t) => {
    const { app, team, jars, resources } = await teamWorld(t);
    const tasks = resources.get("tasks")!;
    const done = await app.post(jars.ann, `/teams/${team}/tasks`, { title: "Plane boards", done: "1" });
    const id = done.location?.split("/").pop() ?? "";
    const before = { tasks: rows(app, "tasks"), events: stream(app, "tasks", id) };
    const form = await app.post(jars.cat, `/teams/${team}/tasks/${id}/delete`, {});
    assert.equal(form.status, 403);
    assert.ok(form.body.includes(viewerRefusal("tasks")), "the form's page says why");
    const job = await runJob("cat@example.com", clearDone(tasks, "cat@example.com", team));
    assert.equal(job.Status, Status.Failed);
    assert.equal(job.Err, viewerRefusal("tasks"));
    // Reading is a viewer's right, as on the list page; a stranger's job is refused as an unknown record.
    assert.equal(tasks.For("cat@example.com", { Team: team }).list().records.length, 1);
    assert.throws(() => tasks.For("dan@example.com", { Team: team }).list(), { status: 404, message: "tasks: no such record" });
    assert.throws(() => tasks.For("bob@example.com").list(), { status: 400, message: /pass \{ Team \}/ });
    assert.deepEqual({ tasks: rows(app, "tasks"), events: stream(app, "tasks", id) }, before);
  });

  it("keeps a person's job to their own records: another person's is unknown, to read, change or delete", async (t) => {
    const { app, jars, resources } = await teamWorld(t, undefined, [errands]);
    const mine = resources.get("errands")!;
    const hers = await app.post(jars.ann, "/errands", { title: "Buy glue" });
    const id = hers.location?.split("/").pop() ?? "";
    const before = { rows: rows(app, "errands"), events: stream(app, "errands", id) };
    const version = resources.get("errands")!.Store.get("ann@example.com", id)?.version ?? 0;
    const job = await runJob("bob@example.com", async () => {
      const records = mine.For("bob@example.com");
      assert.equal(records.get(id), undefined);
      assert.deepEqual(records.list().records, []);
      assert.deepEqual(records.update(id, version, { done: true }), { kind: "missing" });
      assert.equal(records.delete(id), false);
      records.create({ title: "Buy clamps", done: true });
    });
    assert.equal(job.Status, Status.Done, job.Err);
    const after = app.db.prepare("SELECT owner, title, done FROM errands ORDER BY title").all() as object[];
    assert.deepEqual(
      after.map((r) => ({ ...r })),
      [
        { owner: "bob@example.com", title: "Buy clamps", done: 1 },
        { owner: "ann@example.com", title: "Buy glue", done: 0 },
      ],
    );
    const hersAfter = rows(app, "errands").filter((r) => (r as { id: string }).id === id);
    assert.deepEqual({ rows: hersAfter, events: stream(app, "errands", id) }, before, "Ann's errand and its stream are untouched");
  });

  it("checks a job's values by the form's rules, naming the field, and writes nothing", async (t) => {
    const { app, resources } = await teamWorld(t, undefined, [errands]);
    const records = resources.get("errands")!.For("bob@example.com");
    assert.throws(() => records.create({ done: true }), { status: 422, message: /^title: / });
    assert.throws(() => records.create({ title: "x".repeat(21) }), { status: 422, message: /^title: / });
    assert.throws(() => records.create({ title: "Buy glue", colour: "red" }), { status: 400, message: 'errands: no field "colour"' });
    assert.throws(() => resources.get("errands")!.For(""), { status: 400, message: /acts for a person/ });
    assert.deepEqual(rows(app, "errands"), []);
  });

  it("reads, and answers a stale update, in the values its writes take: a yes/no a boolean, not the stored 0", async (t) => {
    const { resources } = await teamWorld(t, undefined, [errands]);
    const records = resources.get("errands")!.For("bob@example.com");
    const { id } = records.create({ title: "Buy glue", done: false });
    const read = records.get(id);
    assert.ok(read);
    assert.equal(read.record.values["done"], false);
    assert.equal(records.list().records[0]?.values["done"], false);
    assert.equal(records.update(id, read.version, { done: true }).kind, "ok");
    // The version read before that update is stale now: its current record can be written back as it is.
    const stale = records.update(id, read.version, { title: "Buy more glue" });
    assert.equal(stale.kind, "stale");
    assert.equal(stale.kind === "stale" && stale.current.values["done"], true);
  });
});
