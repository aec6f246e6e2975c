/*
 * References by name (issue 39 item 2): wherever a person or an agent reads a record that refers to another, the other
 * record is named by its `Title` field (here not its first Text field), never by its id: list cells, search results,
 * the record's page, the CSV's name column and the list and read tools' `_labels`. A reference the reader may not read
 * (another person's or team's record, a deleted one) names nothing. A page's names cost one query per Reference field.
 */
import assert from "node:assert/strict";
import { describe, it, type TestContext } from "node:test";
import * as events from "../../lib/events/index.ts";
import { EventStore } from "../../lib/events/index.ts";
import { ToolRegistry } from "../../lib/agent/index.ts";
import { ctxFrom, type RenderFunc } from "../../lib/index.ts";
import { isResourceView, Kind, mountResource, Resource, ScopeKind, StoreKind } from "../../lib/manifest/index.ts";
import { LIST_PAGE_SIZE } from "../../lib/manifest/list.ts";
import type { DB } from "../../lib/db/index.ts";
import { SUBJECT, startTransportsApp } from "../_support/agent-transports.ts";
import { startSigninApp, type CookieJar, type SigninApp } from "../_support/signin-app.ts";
import { call, teamWorld } from "./team-world.ts";

// Named by `name`, its second Text field: a list showing `code` would show the first Text field (Title ignored).
const projects = new Resource({
  Name: "projects",
  Route: "/projects",
  Store: StoreKind.Exclusive,
  Scope: ScopeKind.UserScoped,
  Title: "name",
  List: { Columns: [{ Field: "code" }] },
  Form: {
    Fields: [
      { Name: "code", Label: "projects.code", Kind: Kind.Text },
      { Name: "name", Label: "projects.name", Kind: Kind.Text, Required: true },
    ],
  },
});

const tasks = new Resource({
  Name: "tasks",
  Route: "/tasks",
  Store: StoreKind.Exclusive,
  Scope: ScopeKind.UserScoped,
  List: { Columns: [{ Field: "title" }, { Field: "project" }] },
  Form: {
    Fields: [
      { Name: "title", Label: "tasks.title", Kind: Kind.Text, Required: true },
      { Name: "project", Label: "tasks.project", Kind: Kind.Reference, References: "projects" },
    ],
  },
});

const render: RenderFunc = (_req, res, _view, data) => {
  if (!isResourceView(data)) throw new Error("test render: not a resource view");
  res.statusCode = data.Status;
  res.setHeader("Content-Type", "text/html; charset=utf-8");
  res.end(`<!doctype html><title>${data.Title}</title>${data.Body.toString()}`);
};

// Counts the runs of the statements looking projects' names up by id (references.ts), with the database itself
// answering them: a list page that named each cell with its own query would run one per row.
function countLookups(db: DB): { runs: number; last?: { sql: string; params: unknown[] } } {
  const counted: { runs: number; last?: { sql: string; params: unknown[] } } = { runs: 0 };
  const prepare = db.prepare.bind(db);
  db.prepare = ((sql: string) => {
    const statement = prepare(sql);
    if (!/^SELECT id, "name" AS label FROM "projects" WHERE id/.test(sql)) return statement;
    const all = statement.all.bind(statement);
    statement.all = (...params: unknown[]) => {
      counted.runs++;
      counted.last = { sql, params };
      return all(...params);
    };
    return statement;
  }) as DB["prepare"];
  return counted;
}

async function start(t: TestContext): Promise<{ app: SigninApp; lookups: ReturnType<typeof countLookups> }> {
  let lookups: ReturnType<typeof countLookups> = { runs: 0 };
  const app = await startSigninApp(t, {
    render,
    schema: [...events.Schema],
    origin: "http://names.test",
    extend: (mux, auth, db) => {
      lookups = countLookups(db);
      const store = new EventStore(db);
      for (const resource of [projects, tasks]) {
        const options = { db, mux, tools: new ToolRegistry(), events: store, origin: "http://names.test", ctxFrom };
        mountResource(resource, { ...options, requireSession: auth.RequireSession });
      }
    },
  });
  return { app, lookups };
}

function client(app: SigninApp, jar: CookieJar) {
  return {
    get: (path: string) => app.request("GET", path, { jar }),
    post: (path: string, form: Record<string, string>) => app.request("POST", path, { jar, headers: { Origin: app.origin }, form }),
  };
}

const idOf = (location: string | undefined): string => location?.split("/").pop() ?? "";

// A task of `owner`'s referring to `project` as the database may hold it (an account deletion removes rows around the store).
function insertTask(db: DB, owner: string, id: string, title: string, project: string, at = 1): void {
  db.prepare("INSERT INTO tasks (id, owner, created_at, updated_at, title, project) VALUES (?, ?, ?, ?, ?, ?)").run(
    id,
    owner,
    at,
    at,
    title,
    project,
  );
}

describe("references by name on the pages", () => {
  it("names a reference by its target's Title in a list cell, a search result and the record's page, and names no record the reader may not read", async (t) => {
    const { app } = await start(t);
    const ada = client(app, await app.signIn("ada@example.com"));
    const bob = client(app, await app.signIn("bob@example.com"));
    const adas = idOf((await ada.post("/projects", { code: "G-1", name: "Garden" })).location);
    const bobs = idOf((await bob.post("/projects", { code: "B-1", name: "Bob secret" })).location);
    const task = idOf((await ada.post("/tasks", { title: "Dig beds", project: adas })).location);
    const link = `<a href="/projects/${adas}" data-reference="project">Garden</a>`;

    const list = await ada.get("/tasks");
    assert.ok(list.body.includes(link), list.body);
    const found = await ada.get("/tasks?q=beds");
    assert.ok(found.body.includes(link), "a search result names it too");
    // The record's page is named by its Title, the first Text field holding something else.
    const page = await ada.get(`/projects/${adas}`);
    assert.match(page.body, /<title>Garden<\/title>/);
    assert.match(page.body, /<h1>Garden<\/h1>/);
    assert.match((await ada.get(`/tasks/${task}`)).body, /<h1>Dig beds<\/h1>/);

    // Ada's own tasks referring to Bob's project and to a deleted one: neither the name nor the id is shown.
    insertTask(app.db, "ada@example.com", "t-foreign", "Peek", bobs, 2);
    insertTask(app.db, "ada@example.com", "t-deleted", "Gone", "deleted-rec", 3);
    const mixed = await ada.get("/tasks");
    assert.equal(mixed.status, 200);
    assert.ok(!mixed.body.includes("Bob secret") && !mixed.body.includes(bobs), "nothing of bob's project");
    assert.ok(!mixed.body.includes("deleted-rec"));
    assert.equal([...mixed.body.matchAll(/data-reference-unavailable="project">Record not available</g)].length, 2);
    assert.ok(mixed.body.includes(link), "ada's own reference is still named");
  });

  it("exports a name column beside the reference's id, formulas neutralised, empty for a record the reader may not read", async (t) => {
    const { app } = await start(t);
    const ada = client(app, await app.signIn("ada@example.com"));
    const bob = client(app, await app.signIn("bob@example.com"));
    const adas = idOf((await ada.post("/projects", { name: "=HYPERLINK(1)" })).location);
    const bobs = idOf((await bob.post("/projects", { name: "Bob secret" })).location);
    const task = idOf((await ada.post("/tasks", { title: "Dig", project: adas })).location);
    insertTask(app.db, "ada@example.com", "t-foreign", "Peek", bobs);
    const csv = await ada.get("/tasks.csv?sort=title&dir=asc");
    assert.equal(csv.status, 200);
    const lines = csv.body.replace(/^\uFEFF/, "").split("\r\n");
    assert.equal(lines[0], "id,title,project,project.name,created_at,updated_at");
    assert.match(lines[1] ?? "", new RegExp(`^${task},Dig,${adas},'=HYPERLINK\\(1\\),`));
    assert.match(lines[2] ?? "", new RegExp(`^t-foreign,Peek,${bobs},,`));
    assert.ok(!csv.body.includes("Bob secret"));
  });

  it("looks a page's names up in one query per Reference field, not one per row", async (t) => {
    const { app, lookups } = await start(t);
    const ada = client(app, await app.signIn("ada@example.com"));
    const insert = app.db.prepare("INSERT INTO projects (id, owner, created_at, updated_at, code, name) VALUES (?, ?, 1, 1, '', ?)");
    const rows = LIST_PAGE_SIZE + 5;
    for (let n = 0; n < rows; n++) {
      insert.run(`p${n}`, "ada@example.com", `Project ${n}`);
      insertTask(app.db, "ada@example.com", `t${n}`, `Task ${n}`, `p${n}`, n + 1);
    }
    lookups.runs = 0;
    const list = await ada.get("/tasks");
    assert.equal([...list.body.matchAll(/data-reference="project">Project [0-9]+</g)].length, LIST_PAGE_SIZE);
    assert.equal(lookups.runs, 1, "one lookup for the page's 20 references");
    // Each id sought in an index (the key, or the owner's ids), not found by reading every project of the person.
    const { sql, params } = lookups.last ?? { sql: "", params: [] };
    const plan = app.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[];
    assert.ok(
      plan.some((step) => /^SEARCH projects USING .*\((owner=\? AND )?id=\?\)$/.test(step.detail)),
      JSON.stringify(plan),
    );
    lookups.runs = 0;
    const csv = await ada.get("/tasks.csv");
    assert.equal(csv.body.split("\r\n").filter((l) => /,Project [0-9]+,/.test(l)).length, rows);
    assert.equal(lookups.runs, 1, "one lookup for the export's one page");
  });
});

describe("references by name in the tools' results", () => {
  it("labels each reference the person may read in the list and read tools' items, and says so in the description", async (t) => {
    const app = await startTransportsApp(t, { resource: tasks, targets: [projects] });
    const token = app.mint("read", "claude");
    const add = app.db.prepare("INSERT INTO projects (id, owner, created_at, updated_at, code, name) VALUES (?, ?, 1, 1, 'C', ?)");
    add.run("p-own", SUBJECT, "Garden");
    add.run("p-bob", "bob@example.com", "Bob secret");
    insertTask(app.db, SUBJECT, "t-own", "Dig", "p-own", 2);
    insertTask(app.db, SUBJECT, "t-foreign", "Peek", "p-bob", 1);
    const listed = await app.tools(token, "tasks_list", {});
    assert.equal(listed.status, 200, listed.body);
    const items = JSON.parse(listed.body).result.items as Record<string, unknown>[];
    assert.deepEqual(
      items.map((i) => [i["id"], i["project"], i["_labels"]]),
      [
        ["t-own", "p-own", { project: "Garden" }],
        ["t-foreign", "p-bob", {}],
      ],
    );
    const read = JSON.parse((await app.tools(token, "tasks_read", { id: "t-own" })).body).result as Record<string, unknown>;
    assert.deepEqual(read["_labels"], { project: "Garden" });
    const tools = JSON.parse((await app.mcp(token, { jsonrpc: "2.0", id: 1, method: "tools/list" })).body) as {
      result: { tools: { name: string; description: string }[] };
    };
    assert.match(tools.result.tools.find((x) => x.name === "tasks_list")?.description ?? "", /"_labels" names the record/);
  });

  it("labels a team's reference only with a record of the team the call names", async (t) => {
    const boards = new Resource({
      Name: "boards",
      Route: "/teams/{team}/boards",
      Store: StoreKind.Exclusive,
      Scope: ScopeKind.TeamScoped,
      List: { Columns: [{ Field: "name" }] },
      Form: { Fields: [{ Name: "name", Label: "boards.name", Kind: Kind.Text, Required: true }] },
    });
    const cards = new Resource({
      Name: "cards",
      Route: "/teams/{team}/cards",
      Store: StoreKind.Exclusive,
      Scope: ScopeKind.TeamScoped,
      List: { Columns: [{ Field: "title" }, { Field: "board" }] },
      Form: {
        Fields: [
          { Name: "title", Label: "cards.title", Kind: Kind.Text, Required: true },
          { Name: "board", Label: "cards.board", Kind: Kind.Reference, References: "boards" },
        ],
      },
    });
    const world = await teamWorld(t, cards, [boards]);
    const { app, team, jars } = world;
    const other = await app.createTeam(jars.ann, "Elsewhere");
    const board = idOf((await app.post(jars.ann, `/teams/${team}/boards`, { name: "Roadmap" })).location);
    const secret = idOf((await app.post(jars.ann, `/teams/${other}/boards`, { name: "Secret plan" })).location);
    const card = idOf((await app.post(jars.ann, `/teams/${team}/cards`, { title: "Ship", board })).location);
    app.db
      .prepare("INSERT INTO cards (id, team, author, created_at, updated_at, title, board) VALUES ('c-foreign', ?, ?, 0, 0, 'Peek', ?)")
      .run(team, "ann@example.com", secret);
    const outcome = await call(world, "bob@example.com", "cards_list", { team });
    assert.equal(outcome.kind, "ok");
    const items = (outcome.kind === "ok" ? (outcome.result as { items: Record<string, unknown>[] }).items : []).map((i) => [
      i["id"],
      i["_labels"],
    ]);
    assert.deepEqual(items, [
      [card, { board: "Roadmap" }],
      ["c-foreign", {}],
    ]);
    const list = await app.request("GET", `/teams/${team}/cards`, { jar: jars.bob });
    assert.ok(list.body.includes(`<a href="/teams/${team}/boards/${board}" data-reference="board">Roadmap</a>`), list.body);
    assert.ok(!list.body.includes("Secret plan") && !list.body.includes(secret));
  });
});
