/*
 * The demo's resources, declared in the manifest and mounted at boot:
 * `expenses` (one SQL table per person's records: a label, an amount in
 * euros, the day it was spent and a category, filtered by label text,
 * amount and date range and category), `notes` (one event
 * stream per note, so two edits of the same note merge), and the
 * starter's `tasks`, a team's shared task list under `/teams/{team}/tasks`
 * (team-scoped: its members read, members and above write). Their pages render
 * through the demo's `Render` (main layout), their actions are tools in the
 * demo's registry, so agents list and (after approval) change them. Each
 * list links to its CSV import (`<Route>/import`), which runs as a job.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import type { Approvals, StandingApprovals, ToolRegistry } from "../../lib/agent/index.ts";
import type { Assets } from "../../lib/assets/index.ts";
import type { AccountRows, DB } from "../../lib/db/index.ts";
import type { EventStore } from "../../lib/events/index.ts";
import { html, type Middleware } from "../../lib/http/index.ts";
import { NewLocales } from "../../lib/i18n/index.ts";
import type { Registry } from "../../lib/jobs/index.ts";
import { ctxFrom } from "../../lib/index.ts";
import {
  Kind,
  Resource,
  ScopeKind,
  StoreKind,
  accountRows,
  isResourceView,
  mountResource,
  resourceSchema,
  type MountedResource,
} from "../../lib/manifest/index.ts";
import type { Mux } from "../../lib/router/index.ts";
import type { Teams } from "../../lib/teams/index.ts";
import { tasks } from "../starter/tasks.ts";
import { clearDoneForm } from "./clear-done.ts";
import { render } from "./pages/layout.ts";

/**
 * Expenses: Exclusive, user-scoped; `label` (Text), `amount` (Money, EUR), `spent_on` (Date), `category` (Choice),
 * `reimbursed_on` (Date, on or after `spent_on`) and `receipt` (File: PDF, PNG or JPEG).
 */
export const expenses: Resource = new Resource({
  Name: "expenses",
  Route: "/expenses",
  Store: StoreKind.Exclusive,
  Scope: ScopeKind.UserScoped,
  // The field that names a record wherever a person reads it (a reference to it, an approval of a change to it).
  Title: "label",
  List: {
    Columns: [{ Field: "label" }, { Field: "amount" }, { Field: "spent_on" }, { Field: "category" }, { Field: "created_at" }],
    Filters: [{ Field: "label" }, { Field: "amount" }, { Field: "spent_on" }, { Field: "category" }],
  },
  Form: {
    Fields: [
      { Name: "label", Label: "expenses.field.label", Kind: Kind.Text, Required: true, MaxLength: 120 },
      { Name: "amount", Label: "expenses.field.amount", Kind: Kind.Money, Required: true, Currency: "EUR" },
      // Added after the first two: an existing database gains their columns at boot (one schema step per field).
      { Name: "spent_on", Label: "expenses.field.spent_on", Kind: Kind.Date },
      {
        Name: "category",
        Label: "expenses.field.category",
        Kind: Kind.Choice,
        Choices: ["travel", "meals", "office", "other"].map((value) => ({ Value: value, Label: `expenses.category.${value}` })),
      },
      { Name: "reimbursed_on", Label: "expenses.field.reimbursed_on", Kind: Kind.Date },
      // A File field (lib/manifest README "Attachments"): a receipt as PDF, PNG or JPEG, recognised by its bytes, at most
      // 10 MiB (FILE_MAX_BYTES_DEFAULT); uploaded and downloaded on the record's page, attached by agents with expenses_attach.
      {
        Name: "receipt",
        Label: "expenses.field.receipt",
        Kind: Kind.File,
        Accept: ["application/pdf", "image/png", "image/jpeg"],
      },
    ],
  },
  // A rule across fields (lib/manifest README "Rules across fields"): no reimbursement before the day of the expense.
  Rules: [{ Field: "reimbursed_on", AtLeast: "spent_on" }],
});

/** Notes: Mergeable, user-scoped; `title` (Text), `body` (Textarea) and `expense` (a Reference to one of the person's expenses). */
export const notes: Resource = new Resource({
  Name: "notes",
  Route: "/notes",
  Store: StoreKind.Mergeable,
  Scope: ScopeKind.UserScoped,
  // The field that names a record wherever a person reads it (a reference to it, an approval of a change to it).
  Title: "title",
  List: {
    Columns: [{ Field: "title" }, { Field: "expense" }, { Field: "updated_at" }],
    Filters: [{ Field: "title" }, { Field: "expense" }],
  },
  Form: {
    Fields: [
      { Name: "title", Label: "notes.field.title", Kind: Kind.Text, Required: true },
      { Name: "body", Label: "notes.field.body", Kind: Kind.Textarea },
      // Added later (an additive step): deleting the expense empties the field, an update of the note by whoever deleted it.
      { Name: "expense", Label: "notes.field.expense", Kind: Kind.Reference, References: "expenses", OnDelete: "clear" },
    ],
  },
});

/**
 * The resources' records as the account component composes them
 * (lib/manifest `accountRows`): each record's `owner` is a person's
 * address; a record's events are its stream `<resource>:<id>`. They move,
 * export and delete with the account.
 */
export function resourceRows(db: DB): AccountRows {
  return accountRows(db, [expenses, notes, tasks]);
}

/** The resources' schema steps, merged into the demo's schema. */
export const resourcesSchema: ReturnType<typeof resourceSchema> = [
  ...resourceSchema(expenses),
  ...resourceSchema(notes),
  ...resourceSchema(tasks),
];

/** The demo's `Render`: a resource page inside the demo layout. */
export function renderResource(assets: Assets): (req: IncomingMessage, res: ServerResponse, view: string, data: unknown) => void {
  return (req, res, view, data) => {
    if (!isResourceView(data)) throw new Error(`demo render: unknown view ${view}`);
    // A team's task list offers the "Clear done tasks" job (clear-done.ts).
    const body = data.Resource === tasks.Name && data.View === "list" ? html`${data.Body}${clearDoneForm(req)}` : data.Body;
    render(req, res, assets, { title: data.Title, body, scripts: [...data.Scripts] }, data.Status);
  };
}

/** What mounting the demo's resources needs. */
export interface ResourcesDeps {
  db: DB;
  mux: Mux;
  events: EventStore;
  tools: ToolRegistry;
  origin: string;
  requireSession: Middleware;
  localeDir: string;
  /** Who is in which team: a team's tasks ask it before every read and write. */
  teams: Teams;
  /** The agents' approvals: a member's pending ones for a team's tasks are voided when the membership ends. */
  approvals: Approvals;
  /** The agents' standing approvals: a member's for a team's tasks end when the membership ends. */
  standing: StandingApprovals;
  /** The job registry a CSV import runs on (lib/manifest README "Import"); its status page is `/jobs/{id}`. */
  jobs: Registry;
  /** The state directory: the expenses' receipts are kept in its `files` directory, CSV uploads wait in `imports`. */
  stateDir: string;
}

/** Mounts `expenses`, `notes` and `tasks`; returns the mounted `tasks` (its records are a job's too: clear-done.ts). */
export function mountResources(deps: ResourcesDeps): MountedResource {
  const english = NewLocales(["en"], "en", undefined, deps.localeDir);
  const mounted = [expenses, notes, tasks].map((resource) =>
    mountResource(resource, {
      db: deps.db,
      mux: deps.mux,
      tools: deps.tools,
      events: deps.events,
      origin: deps.origin,
      requireSession: deps.requireSession,
      ctxFrom,
      label: (key) => english.T("en", key),
      teams: deps.teams,
      approvals: deps.approvals,
      standing: deps.standing,
      // lib/manifest README "Attachments": the files sit under the state directory, beside the database.
      files: join(deps.stateDir, "files"),
      imports: { directory: join(deps.stateDir, "imports"), jobs: deps.jobs },
    }),
  );
  return mounted[2]!;
}
