/*
 * References (issue 25 item 2): a field pointing to a record of another
 * resource. Validation names the resource and field of a target that
 * cannot be; a reference to another person's record is refused with 422
 * on every write path (form create and update, the tools endpoint, MCP
 * tools/call, the store itself) and nothing is stored; the select offers
 * only the person's own records, at most REFERENCE_OPTIONS_LIMIT; a list
 * links to the referenced record; deleting a referenced record is refused
 * (409, nothing deleted) or clears the reference, an update with its event.
 */
import assert from "node:assert/strict";
import { describe, it, type TestContext } from "node:test";
import { humanActor, ToolRegistry } from "../../lib/agent/index.ts";
import * as events from "../../lib/events/index.ts";
import { EventStore } from "../../lib/events/index.ts";
import { ctxFrom, type RenderFunc } from "../../lib/index.ts";
import { Kind, Resource, ScopeKind, StoreKind, isResourceView, mountResource } from "../../lib/manifest/index.ts";
import { isManifestError } from "../../lib/manifest/errors.ts";
import { REFERENCE_OPTIONS_LIMIT, ReferenceRefused } from "../../lib/manifest/references.ts";
import { validateResources } from "../../lib/manifest/validate.ts";
import type { Field, ResourceSpec } from "../../lib/manifest/spec.ts";
import { applySchema } from "../../lib/db/index.ts";
import type { HandlerFunc } from "../../lib/http/index.ts";
import { Mux } from "../../lib/router/index.ts";
import { SUBJECT, startTransportsApp } from "../_support/agent-transports.ts";
import { open, tempFile } from "../_support/db.ts";
import { count, startSigninApp, type CookieJar, type SigninApp } from "../_support/signin-app.ts";

const projects = new Resource({
  Name: "projects",
  Route: "/projects",
  Store: StoreKind.Exclusive,
  Scope: ScopeKind.UserScoped,
  List: { Columns: [{ Field: "name" }] },
  Form: { Fields: [{ Name: "name", Label: "projects.name", Kind: Kind.Text, Required: true }] },
});

// Refuses the deletion of a project it refers to (the default).
const tasks = new Resource({
  Name: "tasks",
  Route: "/tasks",
  Store: StoreKind.Exclusive,
  Scope: ScopeKind.UserScoped,
  List: { Columns: [{ Field: "title" }, { Field: "project" }], Filters: [{ Field: "project" }] },
  Form: {
    Fields: [
      { Name: "title", Label: "tasks.title", Kind: Kind.Text, Required: true },
      { Name: "project", Label: "tasks.project", Kind: Kind.Reference, References: "projects" },
    ],
  },
});

// Mergeable, and cleared when its project is deleted.
const memos = new Resource({
  Name: "memos",
  Route: "/memos",
  Store: StoreKind.Mergeable,
  Scope: ScopeKind.UserScoped,
  List: { Columns: [{ Field: "title" }, { Field: "project" }] },
  Form: {
    Fields: [
      { Name: "title", Label: "memos.title", Kind: Kind.Text, Required: true },
      { Name: "project", Label: "memos.project", Kind: Kind.Reference, References: "projects", OnDelete: "clear" },
    ],
  },
});

const render: RenderFunc = (_req, res, _view, data) => {
  if (!isResourceView(data)) throw new Error("test render: not a resource view");
  res.statusCode = data.Status;
  res.setHeader("Content-Type", "text/html; charset=utf-8");
  res.end(`<!doctype html><title>${data.Title}</title>${data.Body.toString()}`);
};

async function start(t: TestContext): Promise<SigninApp> {
  return startSigninApp(t, {
    render,
    schema: [...events.Schema],
    origin: "http://refs.test",
    extend: (mux, auth, db) => {
      const store = new EventStore(db);
      for (const resource of [projects, tasks, memos]) {
        mountResource(resource, {
          db,
          mux,
          tools: new ToolRegistry(),
          events: store,
          origin: "http://refs.test",
          requireSession: auth.RequireSession,
          ctxFrom,
        });
      }
    },
  });
}

function client(app: SigninApp, jar: CookieJar) {
  return {
    get: (path: string) => app.request("GET", path, { jar }),
    post: (path: string, form: Record<string, string>) => app.request("POST", path, { jar, headers: { Origin: app.origin }, form }),
  };
}

type Row = Record<string, unknown>;
const idOf = (location: string | undefined): string => location?.split("/").pop() ?? "";
const versionOf = (body: string): string => /name="version" value="([0-9]+)"/.exec(body)?.[1] ?? "";
const optionsOf = (body: string, field: string): string[] => {
  const select = new RegExp(`<select id="field-${field}"[^>]*>(.*?)</select>`, "s").exec(body)?.[1] ?? "";
  return [...select.matchAll(/<option value="([^"]*)"/g)].map((m) => m[1] ?? "");
};

describe("Reference fields: validation", () => {
  // A field as a JSON manifest may hold it: any value, undefined included.
  const field = (extra: Partial<Record<keyof Field, unknown>>): Field =>
    ({ Name: "project", Label: "x.project", Kind: Kind.Reference, References: "projects", ...extra }) as Field;
  const referrer = (extra: Partial<Record<keyof Field, unknown>>, scope: ScopeKind = ScopeKind.UserScoped): ResourceSpec => ({
    Name: "tasks",
    Route: "/tasks",
    Store: StoreKind.Exclusive,
    Scope: scope,
    List: { Columns: [] },
    Form: { Fields: [field(extra)] },
  });
  const refused = (specs: ResourceSpec[], reason: RegExp) =>
    assert.throws(
      () => validateResources(specs),
      (e: unknown) =>
        isManifestError(e) &&
        e.code === "ERR_MANIFEST_INVALID_FIELD" &&
        e.resource === "tasks" &&
        e.field === "project" &&
        reason.test(e.message),
    );

  it("refuses a missing or unknown target, a target of its own, a bad OnDelete, and an unscoped resource pointing to user-scoped records", () => {
    refused([referrer({ References: undefined })], /needs References/);
    refused([referrer({ References: "Projects!" })], /needs References/);
    refused([referrer({})], /references projects, which is not declared/);
    refused([referrer({ References: "tasks" })], /cannot reference its own records/);
    refused([projects, referrer({ OnDelete: "cascade" })], /OnDelete must be "refuse" or "clear"/);
    refused([projects, referrer({}, ScopeKind.Unscoped)], /an Unscoped resource cannot reference projects, which is UserScoped/);
    refused([projects, referrer({ Kind: Kind.Text })], /References and OnDelete are for Reference fields/);
    assert.doesNotThrow(() => validateResources([projects, referrer({ OnDelete: "clear" })]));
    const unscopedTarget = { ...projects, Scope: ScopeKind.Unscoped };
    assert.doesNotThrow(() => validateResources([unscopedTarget, referrer({}, ScopeKind.Unscoped)]));
    assert.doesNotThrow(() => validateResources([unscopedTarget, referrer({})]));
  });

  it("refuses at mount a target not mounted before it on the database", (t) => {
    const db = open(t, tempFile(t));
    applySchema(db, events.Schema);
    const options = {
      db,
      mux: new Mux(),
      tools: new ToolRegistry(),
      events: new EventStore(db),
      origin: "http://x",
      requireSession: (next: HandlerFunc) => next,
      ctxFrom: () => undefined,
    };
    assert.throws(
      () => mountResource(tasks, options),
      (e: unknown) => isManifestError(e) && e.field === "project" && /not mounted before it/.test(e.message),
    );
    mountResource(projects, options);
    assert.doesNotThrow(() => mountResource(tasks, options));
  });
});

describe("Reference fields through the pages", () => {
  it("refuses another person's record on create and update with 422 naming the field, storing nothing; offers and links only one's own", async (t) => {
    const app = await start(t);
    const ada = client(app, await app.signIn("ada@example.com"));
    const bob = client(app, await app.signIn("bob@example.com"));
    const bobs = idOf((await bob.post("/projects", { name: "Bob's secret" })).location);
    const adas = idOf((await ada.post("/projects", { name: "Garden" })).location);
    assert.ok(bobs !== "" && adas !== "");

    for (const project of [bobs, "no-such-record", "not an id"]) {
      const res = await ada.post("/tasks", { title: "Dig", project });
      assert.equal(res.status, 422, project);
      assert.match(res.body, /data-error-for="project" role="alert">Choose one of the listed records/);
      assert.ok(!res.body.includes("Bob&#39;s secret") && !res.body.includes("Bob's secret"), "bob's label is not shown");
    }
    assert.equal(count(app.db, "tasks"), 0, "nothing stored");

    const form = await ada.get("/tasks/new");
    assert.deepEqual(optionsOf(form.body, "project"), ["", adas], "only ada's own projects");
    const created = await ada.post("/tasks", { title: "Dig", project: adas });
    assert.equal(created.status, 303, created.body);
    const task = idOf(created.location);
    const page = await ada.get(`/tasks/${task}`);
    assert.match(page.body, new RegExp(`<option value="${adas}" selected>Garden</option>`));

    const update = await ada.post(`/tasks/${task}`, { version: versionOf(page.body), title: "Dig deeper", project: bobs });
    assert.equal(update.status, 422);
    assert.match(update.body, /data-error-for="project"/);
    assert.deepEqual(
      { ...(app.db.prepare("SELECT title, project FROM tasks").get() as Row) },
      { title: "Dig", project: adas },
      "unchanged",
    );

    const list = await ada.get("/tasks");
    assert.ok(list.body.includes(`<a href="/projects/${adas}" data-reference="project">Garden</a>`), list.body);
    assert.match((await ada.get(`/tasks?project=${adas}`)).body, new RegExp(`data-record-id="${task}"`));
    assert.doesNotMatch((await ada.get(`/tasks?project=${bobs}`)).body, /<tr data-record-id/, "filtering by bob's project finds nothing");
    // Bob cannot see ada's task, nor offer ada's project in his form.
    assert.deepEqual(optionsOf((await bob.get("/tasks/new")).body, "project"), ["", bobs]);
  });

  it("offers the newest REFERENCE_OPTIONS_LIMIT records, and the stored one when it is older", async (t) => {
    const app = await start(t);
    const ada = client(app, await app.signIn("ada@example.com"));
    const oldest = idOf((await ada.post("/projects", { name: "Oldest" })).location);
    const task = idOf((await ada.post("/tasks", { title: "Old", project: oldest })).location);
    const insert = app.db.prepare("INSERT INTO projects (id, owner, created_at, updated_at, name) VALUES (?, ?, ?, ?, ?)");
    const now = Date.now();
    for (let n = 0; n < REFERENCE_OPTIONS_LIMIT; n++) insert.run(`p${n}`, "ada@example.com", now + 1000 + n, now + 1000 + n, `P${n}`);
    assert.equal(REFERENCE_OPTIONS_LIMIT, 200);
    const fresh = optionsOf((await ada.get("/tasks/new")).body, "project");
    assert.equal(fresh.length, REFERENCE_OPTIONS_LIMIT + 1, "the empty choice and the newest 200");
    assert.ok(!fresh.includes(oldest), "the oldest is past the bound");
    assert.equal(fresh[1], `p${REFERENCE_OPTIONS_LIMIT - 1}`, "newest first");
    const stored = optionsOf((await ada.get(`/tasks/${task}`)).body, "project");
    assert.equal(stored.length, REFERENCE_OPTIONS_LIMIT + 2);
    assert.equal(stored.at(-1), oldest, "the record's own reference stays selectable");
  });

  it("refuses to delete a referenced record (409, nothing deleted) until nothing refers to it", async (t) => {
    const app = await start(t);
    const ada = client(app, await app.signIn("ada@example.com"));
    const project = idOf((await ada.post("/projects", { name: "Garden" })).location);
    const task = idOf((await ada.post("/tasks", { title: "Dig", project })).location);
    const refused = await ada.post(`/projects/${project}/delete`, {});
    assert.equal(refused.status, 409);
    assert.match(refused.body, /data-outcome="referenced"><p>Not deleted: other records refer to this one/);
    assert.match(refused.body, /<a href="\/tasks">tasks.title<\/a>/);
    assert.equal(count(app.db, "projects"), 1, "nothing deleted");
    assert.equal(count(app.db, "events", "type = ?", "projects.deleted"), 0, "no delete recorded");
    assert.equal((await ada.post(`/tasks/${task}/delete`, {})).status, 303);
    assert.equal((await ada.post(`/projects/${project}/delete`, {})).status, 303);
    assert.equal(count(app.db, "projects"), 0);
  });

  it('clears a reference declared OnDelete "clear" in the delete\'s transaction, an update of the referring record with its event and actor', async (t) => {
    const app = await start(t);
    const ada = client(app, await app.signIn("ada@example.com"));
    const project = idOf((await ada.post("/projects", { name: "Garden" })).location);
    const memo = idOf((await ada.post("/memos", { title: "Seeds", project })).location);
    assert.equal((await ada.post(`/projects/${project}/delete`, {})).status, 303);
    assert.deepEqual({ ...(app.db.prepare("SELECT title, project FROM memos").get() as Row) }, { title: "Seeds", project: null });
    const updated = app.db
      .prepare("SELECT data, actor, subject FROM events WHERE stream = ? AND type = ?")
      .get(`memos:${memo}`, "memos.updated") as Row;
    assert.deepEqual(JSON.parse(String(updated["data"])), { base: 1, values: { project: null }, before: { project } });
    assert.equal(updated["subject"], "ada@example.com");
    assert.equal(updated["actor"], "human", "the person who deleted the project");
    // The merge reads the cleared value as any other update: an edit from the version before it keeps the title change.
    const page = await ada.get(`/memos/${memo}`);
    assert.deepEqual(optionsOf(page.body, "project"), [""]);
    const edited = await ada.post(`/memos/${memo}`, { version: "1", title: "Seeds and bulbs", project: "" });
    assert.equal(edited.status, 303, edited.body);
    assert.deepEqual({ ...(app.db.prepare("SELECT title, project FROM memos").get() as Row) }, { title: "Seeds and bulbs", project: null });
  });
});

describe("Reference fields through the tools, over the tools endpoint and MCP", () => {
  // A project of `owner`'s, as their own pages would store it (the tools app serves no pages).
  const project = (app: SigninApp, owner: string, name: string): string => {
    const id = `${owner.slice(0, 3)}-${name.length}`;
    app.db.prepare("INSERT INTO projects (id, owner, created_at, updated_at, name) VALUES (?, ?, 1, 1, ?)").run(id, owner, name);
    return id;
  };
  it("refuses another person's record on create and update with 422 naming the field, asking no one and storing nothing", async (t) => {
    const app = await startTransportsApp(t, { resource: tasks, targets: [projects] });
    const token = app.mint("write", "claude");
    const bobs = project(app, "bob@example.com", "Bob's");
    const approvals = count(app.db, "agent_approvals");
    for (const project of [bobs, "no-such-record"]) {
      const overHTTP = await app.tools(token, "tasks_create", { title: "Dig", project });
      assert.equal(overHTTP.status, 422, overHTTP.body);
      assert.match(JSON.parse(overHTTP.body).error, /^project: Choose one of the listed records/);
      const overMCP = await app.mcpCall(token, "tasks_create", { title: "Dig", project });
      const result = overMCP["result"] as { isError: boolean; content: { text: string }[] };
      assert.equal(result.isError, true);
      assert.match(result.content[0]?.text ?? "", /^project: Choose one of the listed records/);
    }
    assert.equal(count(app.db, "tasks"), 0);
    assert.equal(count(app.db, "agent_approvals"), approvals, "no one asked to approve a call that cannot run");

    // Ada's own project, created by the person; the agent's task points to it, and the tool returns the id.
    const adas = project(app, SUBJECT, "Garden");
    const held = await app.tools(token, "tasks_create", { title: "Dig", project: adas });
    assert.equal(held.status, 202, held.body);
    app.approve(String(JSON.parse(held.body).approval_url).split("/").pop() ?? "");
    const ran = await app.tools(token, "tasks_create", { title: "Dig", project: adas });
    assert.equal(ran.status, 200, ran.body);
    const task = String(JSON.parse(ran.body).result.id);
    const read = JSON.parse((await app.tools(token, "tasks_read", { id: task })).body).result as Row;
    assert.equal(read["project"], adas);

    app.clock.advance(5000);
    const update = { id: task, version: read["version"], project: bobs };
    const overHTTP = await app.tools(token, "tasks_update", update);
    assert.equal(overHTTP.status, 422, overHTTP.body);
    const overMCP = (await app.mcpCall(token, "tasks_update", update))["result"] as { isError: boolean; content: { text: string }[] };
    assert.equal(overMCP.isError, true);
    assert.match(overMCP.content[0]?.text ?? "", /^project: /);
    assert.equal((app.db.prepare("SELECT project FROM tasks").get() as Row)["project"], adas, "unchanged");

    // The store checks in the write's transaction, whatever called it.
    const store = app.mounted?.Store;
    assert.ok(store !== undefined);
    assert.throws(() => store.create({ owner: SUBJECT, actor: humanActor() }, { title: "Direct", project: bobs }), ReferenceRefused);
    assert.equal(count(app.db, "tasks"), 1);
  });

  it("describes a reference's argument, and refuses to delete a referenced record before approval", async (t) => {
    const app = await startTransportsApp(t, { resource: tasks, targets: [projects] });
    const token = app.mint("write", "claude");
    const listed = JSON.parse((await app.mcp(token, { jsonrpc: "2.0", id: 1, method: "tools/list" })).body) as {
      result: { tools: { name: string; inputSchema: { properties: Record<string, Record<string, unknown>> } }[] };
    };
    const arg = listed.result.tools.find((x) => x.name === "tasks_create")?.inputSchema.properties["project"];
    assert.equal(arg?.["type"], "string");
    assert.match(String(arg?.["description"]), /the id of one of the person's .* \(from projects_list\)/);
    const adas = project(app, SUBJECT, "Garden");
    app.mounted?.Store.create({ owner: SUBJECT, actor: humanActor() }, { title: "Dig", project: adas });
    const refused = await app.tools(token, "projects_delete", { id: adas });
    assert.equal(refused.status, 409, refused.body);
    assert.match(JSON.parse(refused.body).error, /tasks refer to this record \(field project\)/);
    assert.equal(count(app.db, "projects"), 1);
  });
});
