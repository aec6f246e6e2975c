/*
 * The preview of a resource's write tools (issue 39, item 1; lib/manifest preview.ts): what `<name>_create`, `_update`
 * and `_delete` would do, as the approval page shows it. An update names the record by its title, gives each changed
 * field by label with before and after formatted for the request's locale (money, dates, a reference by its target's
 * name), folds the unchanged ones, and flags a version that is not the record's current one; a create lists its values;
 * a delete lists the resources referring to the record, how many records and whether the delete refuses or clears
 * them; a record of another person previews nothing. Each preview is asked over real HTTP, in a request whose locale
 * the runtime's Locales middleware resolved.
 */
import assert from "node:assert/strict";
import { describe, it, type TestContext } from "node:test";
import { ToolRegistry, type CallPreview } from "../../lib/agent/index.ts";
import * as events from "../../lib/events/index.ts";
import { EventStore } from "../../lib/events/index.ts";
import { writeJSON } from "../../lib/http/index.ts";
import { ctxFrom, type RenderFunc } from "../../lib/index.ts";
import { Kind, Resource, ScopeKind, StoreKind, isResourceView, mountResource, resourceSchema } from "../../lib/manifest/index.ts";
import { formatDate } from "../../lib/manifest/scalars.ts";
import { formatMoney } from "../../lib/manifest/money.ts";
import { PathValue } from "../../lib/router/index.ts";
import { From } from "../../lib/signin/index.ts";
import { startSigninApp, type CookieJar, type SigninApp } from "../_support/signin-app.ts";

const projects = new Resource({
  Name: "projects",
  Route: "/projects",
  Store: StoreKind.Exclusive,
  Scope: ScopeKind.UserScoped,
  List: { Columns: [{ Field: "name" }] },
  Form: {
    Fields: [
      { Name: "code", Label: "projects.code", Kind: Kind.Text },
      { Name: "name", Label: "projects.name", Kind: Kind.Text, Required: true },
      { Name: "budget", Label: "projects.budget", Kind: Kind.Money, Currency: "EUR" },
      { Name: "due", Label: "projects.due", Kind: Kind.Date },
    ],
  },
  // Named by its second text field, not its first.
  Title: "name",
});

const referrer = (name: string, onDelete: "refuse" | "clear"): Resource =>
  new Resource({
    Name: name,
    Route: `/${name}`,
    Store: StoreKind.Exclusive,
    Scope: ScopeKind.UserScoped,
    List: { Columns: [{ Field: "title" }] },
    Form: {
      Fields: [
        { Name: "title", Label: `${name}.title_field`, Kind: Kind.Text, Required: true },
        { Name: "project", Label: `${name}.project`, Kind: Kind.Reference, References: "projects", OnDelete: onDelete },
      ],
    },
  });
const tasks = referrer("tasks", "refuse");
const memos = referrer("memos", "clear");

const render: RenderFunc = (_req, res, _view, data) => {
  if (!isResourceView(data)) throw new Error("test render: not a resource view");
  res.statusCode = data.Status;
  res.setHeader("Content-Type", "text/html; charset=utf-8");
  res.end(`<!doctype html><title>${data.Title}</title>${data.Body.toString()}`);
};

// The application, and a route of the test's own answering the preview of a call (its arguments as a JSON query) for
// the person signed in, as the approval page asks it: `null` when the tool says nothing.
async function start(t: TestContext): Promise<SigninApp> {
  return startSigninApp(t, {
    render,
    locales: ["en", "de"],
    schema: [...events.Schema, ...resourceSchema(projects), ...resourceSchema(tasks), ...resourceSchema(memos)],
    origin: "http://preview.test",
    extend: (mux, auth, db) => {
      const tools = new ToolRegistry();
      const store = new EventStore(db);
      for (const resource of [projects, tasks, memos]) {
        mountResource(resource, {
          db,
          mux,
          tools,
          events: store,
          origin: "http://preview.test",
          requireSession: auth.RequireSession,
          ctxFrom,
        });
      }
      mux.With(auth.RequireSession).Handle("GET /preview/{tool}", (req, res) => {
        const args = JSON.parse(new URL(req.url ?? "", "http://x").searchParams.get("args") ?? "{}") as Record<string, string | number>;
        const preview = tools
          .get(PathValue(req, "tool") ?? "")
          ?.Preview?.({ Args: new Map(Object.entries(args)), Subject: From(req)?.Subject ?? "" }, req);
        writeJSON(res, 200, preview ?? null);
      });
    },
  });
}

function person(app: SigninApp, jar: CookieJar) {
  return {
    preview: async (tool: string, args: Record<string, unknown>, language = "en"): Promise<CallPreview | null> => {
      const res = await app.request("GET", `/preview/${tool}?args=${encodeURIComponent(JSON.stringify(args))}`, {
        jar,
        headers: { "Accept-Language": language },
      });
      assert.equal(res.status, 200, res.body);
      return JSON.parse(res.body) as CallPreview | null;
    },
    create: async (route: string, form: Record<string, string>): Promise<{ id: string; version: number }> => {
      const created = await app.request("POST", route, { jar, headers: { Origin: app.origin }, form });
      assert.equal(created.status, 303, created.body);
      const id = created.location?.split("/").pop() ?? "";
      const page = await app.request("GET", `${route}/${id}`, { jar });
      return { id, version: Number(/name="version" value="([0-9]+)"/.exec(page.body)?.[1]) };
    },
  };
}

describe("previews of a resource's write tools", () => {
  it("an update: the record by its title, changed fields before → after per locale, the rest folded, a stale version flagged", async (t) => {
    const app = await start(t);
    const ada = person(app, await app.signIn("ada@example.com"));
    const { id, version } = await ada.create("/projects", { code: "G-1", name: "Garden", budget: "1234.50", due: "2026-05-01" });
    const args = { id, version, name: "Garden", budget: "2000.00", due: "2026-06-01" };
    for (const locale of ["en", "de"]) {
      assert.deepEqual(await ada.preview("projects_update", args, locale), {
        Kind: "update",
        Title: "Garden",
        Fields: [
          {
            Field: "budget",
            Label: "projects.budget",
            Value: formatMoney(200000, locale, "EUR"),
            Before: formatMoney(123450, locale, "EUR"),
          },
          { Field: "due", Label: "projects.due", Value: formatDate("2026-06-01", locale), Before: formatDate("2026-05-01", locale) },
        ],
        // "name" was sent with the stored value: unchanged.
        Unchanged: [
          { Field: "code", Label: "projects.code", Value: "G-1" },
          { Field: "name", Label: "projects.name", Value: "Garden" },
        ],
        Stale: false,
        ReferredBy: [],
      });
    }
    assert.notEqual(formatMoney(200000, "de", "EUR"), formatMoney(200000, "en", "EUR"), "the locales differ");
    assert.equal((await ada.preview("projects_update", { ...args, version: version - 1 }))?.Stale, true);
  });

  it("a create lists its values, a reference by its target's name; a delete lists what refers to the record, refusing or clearing", async (t) => {
    const app = await start(t);
    const ada = person(app, await app.signIn("ada@example.com"));
    const garden = await ada.create("/projects", { name: "Garden", budget: "5" });
    assert.deepEqual(await ada.preview("tasks_create", { title: "Dig", project: garden.id }, "de"), {
      Kind: "create",
      Fields: [
        { Field: "title", Label: "tasks.title_field", Value: "Dig" },
        { Field: "project", Label: "tasks.project", Value: "Garden" },
      ],
      Unchanged: [],
      Stale: false,
      ReferredBy: [],
    });
    await ada.create("/tasks", { title: "Dig", project: garden.id });
    await ada.create("/memos", { title: "Seeds", project: garden.id });
    await ada.create("/memos", { title: "Tools", project: garden.id });
    assert.deepEqual(await ada.preview("projects_delete", { id: garden.id }), {
      Kind: "delete",
      Title: "Garden",
      Fields: [
        { Field: "name", Label: "projects.name", Value: "Garden" },
        { Field: "budget", Label: "projects.budget", Value: formatMoney(500, "en", "EUR") },
      ],
      Unchanged: [],
      Stale: false,
      ReferredBy: [
        { Resource: "tasks", Label: "tasks.title", Count: 1, OnDelete: "refuse" },
        { Resource: "memos", Label: "memos.title", Count: 2, OnDelete: "clear" },
      ],
    });
  });

  it("a record of another person previews nothing, nor a reference to one", async (t) => {
    const app = await start(t);
    const ada = person(app, await app.signIn("ada@example.com"));
    const bob = person(app, await app.signIn("bob@example.com"));
    const secret = await bob.create("/projects", { name: "Bob's secret" });
    assert.equal(await ada.preview("projects_update", { id: secret.id, version: secret.version, name: "Mine" }), null);
    assert.equal(await ada.preview("projects_delete", { id: secret.id }), null);
    const dig = await ada.preview("tasks_create", { title: "Dig", project: secret.id });
    assert.equal(dig?.Fields.find((f) => f.Field === "project")?.Value, "unknown record");
    assert.ok(!JSON.stringify(dig).includes("secret"));
    assert.notEqual(await bob.preview("projects_delete", { id: secret.id }), null, "its owner's preview");
  });
});
