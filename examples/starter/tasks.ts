/*
 * A team's shared task list, to copy: a resource from the manifest whose
 * records belong to a team (latch/teams), not to one person. Its pages live
 * under the team's page, `/teams/{team}/tasks`: the list (live: a change by
 * any member shows in the others' open lists), the form and each task's
 * page with its history, every change attributed to the member who made it.
 * Members and above write, viewers read; anyone else gets the same 404 as
 * for an unknown id. Its tools (`tasks_list`, `tasks_create`…) take the
 * team as an argument. The demo mounts it, and so does step 8 of
 * docs/guide.md; its words are in the starter's catalogs (`tasks.*`).
 */
import { Kind, Resource, ScopeKind, StoreKind } from "latch/manifest";

/** Tasks: one SQL table (Exclusive), each team sees only its own (TeamScoped). */
export const tasks: Resource = new Resource({
  Name: "tasks",
  Route: "/teams/{team}/tasks",
  Store: StoreKind.Exclusive,
  Scope: ScopeKind.TeamScoped,
  // The field that names a record wherever a person reads it (a reference to it, an approval of a change to it).
  Title: "title",
  List: {
    Columns: [{ Field: "title" }, { Field: "done" }, { Field: "assignee" }, { Field: "updated_at" }],
    Filters: [{ Field: "title" }, { Field: "done" }, { Field: "assignee" }],
  },
  Form: {
    Fields: [
      { Name: "title", Label: "tasks.field.title", Kind: Kind.Text, Required: true, MaxLength: 200 },
      { Name: "done", Label: "tasks.field.done", Kind: Kind.Boolean },
      // The member who takes it on, by their address (as team pages name members).
      { Name: "assignee", Label: "tasks.field.assignee", Kind: Kind.Email },
    ],
  },
});
tasks.Validate(); // at import: a mistake in the declaration stops the app before it listens
