/*
 * TeamScoped resources (issue 38): a team's records under `/teams/{team}/tasks`, in a real application (the runtime,
 * sign-in over SMTP, lib/teams with its invitations, the tool registry). Every route and tool asks `roleOf` first: a
 * stranger, an unknown team and a removed member get the 404 of an unknown id; a viewer reads and is refused writes
 * (403, nothing written); members write, each change attributed to its author; no team reaches another's records.
 */
import assert from "node:assert/strict";
import { get } from "node:http";
import { describe, it } from "node:test";
import { Kind, mountResource, Resource, ScopeKind } from "../../lib/manifest/index.ts";
import { validateResources } from "../../lib/manifest/validate.ts";
import { ToolRegistry } from "../../lib/agent/index.ts";
import { ctxFrom } from "../../lib/index.ts";
import type { CookieJar } from "../_support/http-client.ts";
import { ORIGIN, type TeamsApp } from "../teams/harness.ts";
import { call, tasks, teamWorld } from "./team-world.ts";

/** Resolves once `ready()` holds, asking again on each turn of the event loop (no timing threshold). */
async function waitFor(ready: () => boolean): Promise<void> {
  while (!ready()) await new Promise((turn) => setImmediate(turn));
}

const rows = (app: TeamsApp): unknown[] => app.db.prepare("SELECT id, team, author, title, done FROM tasks ORDER BY created_at, id").all();

describe("a TeamScoped resource", () => {
  it("stores a member's record under the team with its author, and each change's event names its author", async (t) => {
    const { app, team, jars } = await teamWorld(t);
    const made = await app.post(jars.ann, `/teams/${team}/tasks`, { title: "Order oak" });
    const id = new RegExp(`^/teams/${team}/tasks/([A-Za-z0-9_-]{12})$`).exec(made.location ?? "")?.[1];
    assert.ok(id, `303 to the record under the team, got ${made.status} ${made.location ?? ""}`);
    const page = await app.request("GET", `/teams/${team}/tasks/${id}`, { jar: jars.bob });
    assert.equal(page.status, 200);
    assert.match(page.body, new RegExp(`action="/teams/${team}/tasks/${id}"`));
    const version = /name="version" value="([0-9]+)"/.exec(page.body)?.[1] ?? "";
    const saved = await app.post(jars.bob, `/teams/${team}/tasks/${id}`, { title: "Order oak", done: "1", version });
    assert.equal(saved.location, `/teams/${team}/tasks/${id}?saved=1`);
    assert.deepEqual(rows(app), [{ id, team, author: "ann@example.com", title: "Order oak", done: 1 }]);
    const stream = app.db.prepare("SELECT type, subject, actor FROM events WHERE stream = ? ORDER BY seq").all(`tasks:${id}`);
    assert.deepEqual(stream, [
      { type: "tasks.created", subject: "ann@example.com", actor: "human" },
      { type: "tasks.updated", subject: "bob@example.com", actor: "human" },
    ]);
    const list = await app.request("GET", `/teams/${team}/tasks`, { jar: jars.cat });
    assert.equal(list.status, 200);
    assert.match(list.body, new RegExp(`href="/teams/${team}/tasks/${id}"`));
    assert.match(list.body, new RegExp(`data-live="/teams/${team}/tasks/events"`));
  });

  it("answers a stranger, an unknown team and a removed member the 404 of an unknown id on every route, writing nothing", async (t) => {
    const { app, team, jars } = await teamWorld(t);
    const made = await app.post(jars.ann, `/teams/${team}/tasks`, { title: "Order oak" });
    const id = made.location?.split("/").pop() ?? "";
    const routes = (at: string): [string, string, Record<string, string>?][] => [
      ["GET", `/teams/${at}/tasks`],
      ["GET", `/teams/${at}/tasks.csv`],
      ["GET", `/teams/${at}/tasks/new`],
      ["GET", `/teams/${at}/tasks/${id}`],
      ["GET", `/teams/${at}/tasks/events`],
      ["POST", `/teams/${at}/tasks`, { title: "mine" }],
      ["POST", `/teams/${at}/tasks/${id}`, { title: "mine", version: "1" }],
      ["POST", `/teams/${at}/tasks/${id}/delete`, {}],
    ];
    const before = rows(app);
    const unknown = await app.request("GET", `/teams/${id}/tasks/${id}`, { jar: jars.bob });
    assert.equal(unknown.status, 404);
    for (const [jar, at] of [
      [jars.dan, team],
      [jars.ann, "AAAAAAAAAAAA"],
      [jars.ann, "not-a-team"],
    ] as const) {
      for (const [method, path, form] of routes(at)) {
        const answer = await app.request(method, path, { jar, ...(form !== undefined && { form }) });
        assert.equal(answer.status, 404, `${method} ${path}`);
        assert.equal(answer.body, unknown.body, `${method} ${path}: the page of an unknown id`);
      }
    }
    assert.equal((await app.request("GET", `/teams/${team}/tasks`, { jar: jars.bob })).status, 200);
    assert.equal((await app.post(jars.ann, `/teams/${team}/members/remove`, { member: "bob@example.com" })).status, 303);
    for (const [method, path, form] of routes(team)) {
      const answer = await app.request(method, path, { jar: jars.bob, ...(form !== undefined && { form }) });
      assert.equal(answer.status, 404, `removed: ${method} ${path}`);
    }
    assert.deepEqual(rows(app), before);
  });

  it("lets a viewer read and refuses their writes with 403 naming why, writing nothing", async (t) => {
    const { app, team, jars } = await teamWorld(t);
    const id = (await app.post(jars.ann, `/teams/${team}/tasks`, { title: "Order oak" })).location?.split("/").pop() ?? "";
    assert.equal((await app.request("GET", `/teams/${team}/tasks/${id}`, { jar: jars.cat })).status, 200);
    const before = rows(app);
    for (const [path, form] of [
      [`/teams/${team}/tasks`, { title: "mine" }],
      [`/teams/${team}/tasks/${id}`, { title: "mine", version: "1" }],
      [`/teams/${team}/tasks/${id}/delete`, {}],
    ] as const) {
      const refused = await app.post(jars.cat, path, form);
      assert.equal(refused.status, 403, path);
      assert.match(refused.body, /a viewer/);
    }
    assert.deepEqual(rows(app), before);
  });

  it("keeps each team's records to it: another team's list, record and search do not reach them", async (t) => {
    const { app, team, jars } = await teamWorld(t);
    const other = await app.createTeam(jars.ann, "Garden");
    const id = (await app.post(jars.ann, `/teams/${team}/tasks`, { title: "Order oak" })).location?.split("/").pop() ?? "";
    assert.equal((await app.post(jars.ann, `/teams/${other}/tasks`, { title: "Sow beans" })).status, 303);
    assert.equal((await app.request("GET", `/teams/${other}/tasks/${id}`, { jar: jars.ann })).status, 404);
    const listed = await app.request("GET", `/teams/${other}/tasks?q=oak`, { jar: jars.ann });
    assert.doesNotMatch(listed.body, /Order oak/);
    const found = await app.request("GET", `/teams/${team}/tasks?q=oak`, { jar: jars.bob });
    assert.match(found.body, /Order oak/);
    const csv = await app.request("GET", `/teams/${other}/tasks.csv`, { jar: jars.ann });
    assert.match(csv.body, /Sow beans/);
    assert.doesNotMatch(csv.body, /Order oak/);
  });

  it("gives its tools a required team argument, checked on every call: 404 for a stranger and a removed member, 403 for a viewer's write", async (t) => {
    const world = await teamWorld(t);
    const { app, tools, team, jars } = world;
    for (const def of tools.list()) {
      const arg = def.Tool.Args?.find((a) => a.Name === "team");
      assert.equal(arg?.Required, true, def.Name);
      assert.match(arg?.Description ?? "", /team/);
    }
    const made = await call(world, "bob@example.com", "tasks_create", { team, title: "Plane boards" });
    assert.equal(made.kind, "ok");
    const listed = await call(world, "cat@example.com", "tasks_list", { team });
    assert.equal(listed.kind === "ok" && (listed.result as { items: unknown[] }).items.length, 1);
    assert.deepEqual(await call(world, "dan@example.com", "tasks_list", { team }), {
      kind: "refused",
      status: 404,
      reason: "tasks: no such record",
    });
    const viewer = await call(world, "cat@example.com", "tasks_create", { team, title: "mine" });
    assert.equal(viewer.kind === "refused" && viewer.status, 403);
    assert.equal((await call(world, "bob@example.com", "tasks_list", {})).kind, "invalid");
    await app.post(jars.ann, `/teams/${team}/members/remove`, { member: "bob@example.com" });
    const removed = await call(world, "bob@example.com", "tasks_list", { team });
    assert.equal(removed.kind === "refused" && removed.status, 404);
    assert.equal(rows(app).length, 1);
  });
});

/** Opens `path`'s event stream as `jar`'s person; resolves with what it read once the server ends it. */
function follow(base: string, path: string, jar: CookieJar): Promise<{ status: number; ended: Promise<string>; read: () => string }> {
  return new Promise((resolve, reject) => {
    const cookie = jar.header();
    const headers = { Accept: "text/event-stream", ...(cookie !== undefined && { Cookie: cookie }) };
    get(`${base}${path}`, { headers, agent: false }, (res) => {
      let body = "";
      res.on("data", (chunk: Buffer) => (body += chunk.toString()));
      const ended = new Promise<string>((done) => res.on("end", () => done(body)));
      resolve({ status: res.statusCode ?? 0, ended, read: () => body });
    }).on("error", reject);
  });
}

describe("a TeamScoped resource's live pages", () => {
  it("tell every member of the team's changes, and end a member's stream at once when they are removed", async (t) => {
    const { app, team, jars } = await teamWorld(t);
    const bobs = await follow(app.base, `/teams/${team}/tasks/events`, jars.bob);
    const cats = await follow(app.base, `/teams/${team}/tasks/events`, jars.cat);
    assert.equal(bobs.status, 200);
    const id = (await app.post(jars.ann, `/teams/${team}/tasks`, { title: "Order oak" })).location?.split("/").pop() ?? "";
    await waitFor(() => bobs.read().includes(id) && cats.read().includes(id));
    assert.equal((await app.post(jars.ann, `/teams/${team}/members/remove`, { member: "bob@example.com" })).status, 303);
    assert.match(await bobs.ended, new RegExp(`"id":"${id}"`));
    // Cat's stream stays open: one more change reaches it, and the stream Bob would reopen is the 404 of a stranger.
    await app.post(jars.ann, `/teams/${team}/tasks`, { title: "Plane boards" });
    await waitFor(() => (cats.read().match(/"change":"created"/g) ?? []).length === 2);
    assert.equal((await follow(app.base, `/teams/${team}/tasks/events`, jars.bob)).status, 404);
  });
});

describe("a TeamScoped resource's declaration", () => {
  const declared = (route: string, scope: ScopeKind) => new Resource({ ...tasks, Route: route, Scope: scope });
  it("needs {team} as one whole segment of its route, and only a TeamScoped route holds it", () => {
    for (const route of ["/tasks", "/teams/{team}x/tasks", "/teams/{team}/{team}/tasks", "/teams/{tea}/tasks"]) {
      assert.throws(() => declared(route, ScopeKind.TeamScoped).Validate(), { code: "ERR_MANIFEST_INVALID_ROUTE" }, route);
    }
    assert.throws(() => declared("/teams/{team}/tasks", ScopeKind.UserScoped).Validate(), { code: "ERR_MANIFEST_INVALID_ROUTE" });
    declared("/{team}", ScopeKind.TeamScoped).Validate();
  });

  it("refuses a field named team or author, a reference to another scope's records, and a mount without Teams", () => {
    const field = (name: string) =>
      new Resource({ ...tasks, Form: { Fields: [{ Name: name, Label: "x", Kind: Kind.Text }] }, List: { Columns: [] } });
    for (const name of ["team", "author"]) assert.throws(() => field(name).Validate(), { code: "ERR_MANIFEST_RESERVED_FIELD" });
    const notes = new Resource({ ...tasks, Name: "notes", Route: "/notes", Scope: ScopeKind.UserScoped });
    const linked = (scope: ScopeKind, route: string) =>
      new Resource({
        ...tasks,
        Name: "links",
        Route: route,
        Scope: scope,
        Form: { Fields: [{ Name: "to", Label: "x", Kind: Kind.Reference, References: "tasks" }] },
        List: { Columns: [] },
      });
    assert.throws(
      () => validateResources([tasks, linked(ScopeKind.UserScoped, "/links")]),
      /a UserScoped resource cannot reference tasks, which is TeamScoped/,
    );
    assert.throws(() => validateResources([tasks, linked(ScopeKind.Unscoped, "/links")]), /an Unscoped resource cannot reference tasks/);
    validateResources([tasks, linked(ScopeKind.TeamScoped, "/teams/{team}/links")]);
    const options = { db: undefined as never, mux: undefined as never, tools: new ToolRegistry(), events: {} as never };
    assert.throws(
      () => mountResource(tasks, { ...options, origin: ORIGIN, requireSession: (h) => h, ctxFrom }),
      /a TeamScoped resource needs MountOptions.teams/,
    );
    assert.throws(
      () =>
        validateResources([
          notes,
          new Resource({
            ...tasks,
            Name: "links",
            Form: { Fields: [{ Name: "to", Label: "x", Kind: Kind.Reference, References: "notes" }] },
            List: { Columns: [] },
          }),
        ]),
      /a TeamScoped resource cannot reference notes, which is UserScoped/,
    );
  });
});
