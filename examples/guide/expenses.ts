/*
 * Step 6 of docs/guide.md: resources from the manifest. `expenses` is
 * declared once (a label, an amount in euros, the day and the project it
 * belongs to, each person's own) and mounted at boot: its table, its list,
 * form and record pages under `/expenses`, and its five tools in the same
 * registry as the agent's `job_status`. `projects` (a name) is mounted the
 * same way, first: an expense's `project` refers to one of them. Its pages render through `renderResource` (the app's
 * `Options.Render`) in the starter's layout; its words are in the
 * starter's catalogs.
 */
import { ctxFrom, type RenderFunc } from "latch";
import type { ToolRegistry } from "latch/agent";
import type { Assets } from "latch/assets";
import type { DB } from "latch/db";
import { EventStore } from "latch/events";
import { NewLocales } from "latch/i18n";
import { isResourceView, Kind, mountResource, Resource, ScopeKind, StoreKind } from "latch/manifest";
import type { Mux } from "latch/router";
import type { Signin } from "latch/signin";
import { LOCALES_DIR } from "../starter/files.ts";
import { render, starterNav } from "../starter/pages/layout.ts";

/** Projects: what an expense can belong to; each person names their own. */
export const projects: Resource = new Resource({
  Name: "projects",
  Route: "/projects",
  Store: StoreKind.Exclusive,
  Scope: ScopeKind.UserScoped,
  List: { Columns: [{ Field: "name" }, { Field: "created_at" }], Filters: [{ Field: "name" }] },
  Form: { Fields: [{ Name: "name", Label: "projects.field.name", Kind: Kind.Text, Required: true, MaxLength: 120 }] },
});
projects.Validate();

/** Expenses: one SQL table (Exclusive), each person sees only their own (UserScoped). */
export const expenses: Resource = new Resource({
  Name: "expenses",
  Route: "/expenses",
  Store: StoreKind.Exclusive,
  Scope: ScopeKind.UserScoped,
  List: {
    Columns: [{ Field: "label" }, { Field: "amount" }, { Field: "spent_on" }, { Field: "project" }, { Field: "created_at" }],
    Filters: [{ Field: "label" }, { Field: "spent_on" }, { Field: "project" }],
  },
  Form: {
    Fields: [
      { Name: "label", Label: "expenses.field.label", Kind: Kind.Text, Required: true, MaxLength: 120 },
      { Name: "amount", Label: "expenses.field.amount", Kind: Kind.Money, Required: true, Currency: "EUR" },
      { Name: "spent_on", Label: "expenses.field.spent_on", Kind: Kind.Date },
      // One of the person's own projects, checked in SQL on every write; deleting the project clears it.
      { Name: "project", Label: "expenses.field.project", Kind: Kind.Reference, References: "projects", OnDelete: "clear" },
    ],
  },
});
expenses.Validate(); // at import: a mistake in the declaration stops the app before it listens

/** `Options.Render`: a resource's page (a `ResourceView`) inside the starter's layout. */
export function renderResource(assets: Assets): RenderFunc {
  return (req, res, view, data) => {
    if (!isResourceView(data)) throw new Error(`guide: no view ${view}`);
    render(req, res, assets, { title: data.Title, body: data.Body, nav: starterNav(req), scripts: [...data.Scripts] }, data.Status);
  };
}

/** What mounting the resource needs. */
export interface ExpensesDeps {
  db: DB;
  mux: Mux;
  /** The registry the agent's tools API serves (step 5). */
  tools: ToolRegistry;
  auth: Signin;
  Origin: string;
}

/** Mounts `/projects` and `/expenses` (six routes each) and their tools, projects first: a reference's target is mounted before it. */
export function mountExpenses({ db, mux, tools, auth, Origin }: ExpensesDeps): void {
  const english = NewLocales(["en"], "en", undefined, LOCALES_DIR); // tool descriptions, in the app's default language
  const events = new EventStore(db); // every change is an event with its actor: the person's, or the agent's
  for (const resource of [projects, expenses]) {
    mountResource(resource, {
      db,
      mux,
      tools,
      events,
      origin: Origin,
      requireSession: auth.RequireSession,
      ctxFrom,
      label: (key) => english.T("en", key),
    });
  }
}
