/*
 * The write paths of the demo's expenses and notes (scripts/write-paths.ts describes the table; lib/manifest README):
 * each record's form routes, its bulk change, a File field's upload and the CSV import, every record's event the
 * person's (the team's task list's rows are in write-paths-teams.ts).
 */
import { importWritePaths } from "./write-paths-imports.ts";
import type { Driver, WritePath } from "./write-paths.ts";

const BULK_ATOMIC = "test/manifest/bulk.test.ts";

/** What the record rows share with the rest of the table. */
export interface RecordDrives {
  /** The id of the person's newest record of `table`. */
  record: (d: Driver, table: string) => string;
  /** The version a record's page carries in its form. */
  version: (d: Driver, route: string, id: string) => Promise<string>;
  /** The failure-injection test of a record's event. */
  recordAtomic: string;
}

/** The expenses' and notes' rows of WRITE_PATHS, in the order they are driven (a record is made before it is changed). */
export function recordWritePaths({ record, version, recordAtomic }: RecordDrives): WritePath[] {
  return [
    {
      name: "POST /expenses",
      drive: (d) => d.post("/expenses", { label: "Train", amount: "12.50" }),
      event: { type: "expenses.created", actor: "human" },
      atomic: recordAtomic,
    },
    {
      name: "POST /expenses/{id}",
      drive: async (d) => {
        const id = record(d, "expenses");
        return d.post(`/expenses/${id}`, { label: "Train back", amount: "12.50", version: await version(d, "/expenses", id) });
      },
      event: { type: "expenses.updated", actor: "human" },
      atomic: recordAtomic,
    },
    {
      name: "POST /expenses/bulk",
      // A bulk change of one record: the same event as its single update (lib/manifest README, "Bulk changes").
      drive: (d) => d.post("/expenses/bulk", { action: "set", field: "label", value: "Train", ids: record(d, "expenses") }),
      event: { type: "expenses.updated", actor: "human" },
      atomic: BULK_ATOMIC,
    },
    {
      // lib/manifest README "Attachments": the upload is the record's update holding the file; expenses_attach, the same
      // write through POST /api/tools/{name}, appends the same event by its agent (test/manifest/demo-files.test.ts).
      name: "POST /expenses/{id}/files/{field}",
      drive: (d) => d.upload(`/expenses/${record(d, "expenses")}/files/receipt`, "receipt.pdf", Buffer.from("%PDF-1.7\n%%EOF\n")),
      event: { type: "expenses.updated", actor: "human" },
      atomic: recordAtomic,
    },
    { name: "POST /notes/{id}/files/{field}", none: "mounted for a resource with a File field only: notes has none, so no such route" },
    {
      name: "POST /teams/{team}/tasks/{id}/files/{field}",
      none: "mounted for a resource with a File field only: tasks has none, so no such route",
    },
    {
      name: "POST /expenses/{id}/delete",
      drive: async (d) => {
        const id = record(d, "expenses");
        return d.post(`/expenses/${id}/delete`, { version: await version(d, "/expenses", id) });
      },
      event: { type: "expenses.deleted", actor: "human" },
      atomic: recordAtomic,
    },
    {
      name: "POST /notes",
      drive: (d) => d.post("/notes", { title: "Plan", body: "a line" }),
      event: { type: "notes.created", actor: "human" },
      atomic: recordAtomic,
    },
    {
      name: "POST /notes/{id}",
      drive: async (d) => {
        const id = record(d, "notes");
        return d.post(`/notes/${id}`, { title: "Plan", body: "two lines", version: await version(d, "/notes", id) });
      },
      event: { type: "notes.updated", actor: "human" },
      atomic: recordAtomic,
    },
    {
      name: "POST /notes/bulk",
      // A bulk change of one record: the same event as its single update (lib/manifest README, "Bulk changes").
      drive: (d) => d.post("/notes/bulk", { action: "set", field: "title", value: "Plan B", ids: record(d, "notes") }),
      event: { type: "notes.updated", actor: "human" },
      atomic: BULK_ATOMIC,
    },
    {
      name: "POST /notes/{id}/delete",
      drive: async (d) => {
        const id = record(d, "notes");
        return d.post(`/notes/${id}/delete`, { version: await version(d, "/notes", id) });
      },
      event: { type: "notes.deleted", actor: "human" },
      atomic: recordAtomic,
    },
    ...importWritePaths(recordAtomic),
  ];
}
