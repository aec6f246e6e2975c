/*
 * The write paths of the demo's CSV imports (scripts/write-paths.ts describes the table; lib/manifest README "Import"):
 * an upload stores a file and changes no record; its confirm runs the import as the person's job, through
 * `MountedResource.For`, each record's event the person's.
 */
import type { Answer, Driver, WritePath } from "./write-paths.ts";

/**
 * Imports `csv` into the list at `route` (lib/manifest README "Import"): its upload, its confirm, and the job followed
 * until its status page stops saying "running".
 */
export const imported =
  (route: (d: Driver) => string, csv: string) =>
  async (d: Driver): Promise<Answer> => {
    const preview = await d.upload(`${route(d)}/import`, "import.csv", csv);
    const upload = new URLSearchParams(preview.location?.split("?")[1]).get("upload") ?? "";
    const started = await d.post(`${route(d)}/import/confirm`, { upload });
    while ((await d.get(started.location ?? "")).body.includes('data-status="running"')) await new Promise((turn) => setImmediate(turn));
    return started;
  };
/** Why an import's upload records no change. */
export const UPLOAD_ONLY =
  "stores the file and shows its preview, changing no record: its confirm (`/import/confirm`) writes, as the person's job";

/** The import rows of WRITE_PATHS for `/expenses` and `/notes` (the team's task list's are in write-paths-teams.ts). */
export function importWritePaths(recordAtomic: string): WritePath[] {
  return [
    // The CSV import (lib/manifest README "Import"): the upload stores a file; the confirm's job writes through For.
    {
      name: "POST /expenses/import",
      drive: (d) => d.upload("/expenses/import", "import.csv", "label,amount\nTaxi,9.00\n"),
      none: UPLOAD_ONLY,
    },
    {
      name: "POST /expenses/import/confirm",
      drive: imported(() => "/expenses", "label,amount\nTaxi,9.00\n"),
      event: { type: "expenses.created", actor: "human" },
      atomic: recordAtomic,
    },
    { name: "POST /notes/import", drive: (d) => d.upload("/notes/import", "import.csv", "title\nImported\n"), none: UPLOAD_ONLY },
    {
      name: "POST /notes/import/confirm",
      drive: imported(() => "/notes", "title\nImported\n"),
      event: { type: "notes.created", actor: "human" },
      atomic: recordAtomic,
    },
  ];
}
