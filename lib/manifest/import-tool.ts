/*
 * `<name>_import`, a write tool (so an MCP tool too; README "Import"): an agent's CSV, in the export's format, given
 * whole as the `csv` argument (within the tools' body limit, 64 KiB: lib/http DEFAULT_BODY_LIMIT), checked as a
 * person's upload is, refused while a row has errors, and run after ONE approval whose preview shows how many records
 * it creates and its first IMPORT_SAMPLE_ROWS rows. Each record is the agent's, with the approval that allowed it.
 */
import type { IncomingMessage } from "node:http";
import { defineAction, ToolWrite, type ToolArg, type ToolDef } from "../agent/index.ts";
import { unlessRefused } from "./preview.ts";
import type { DB } from "../db/index.ts";
import type { HandlerFunc } from "../http/index.ts";
import { interpolate, T, Tf } from "../i18n/index.ts";
import { callOwner, problemText, toolWriter, type Label } from "./calls.ts";
import { CSVRefused, csvTextRows, type CSVRow } from "./csv-read.ts";
import { cellMaxOf, checkedRows, importCreate, writeImport, type CheckedRow, type ImportRefs, type ImportWrites } from "./import-rows.ts";
import { Kind } from "./kinds.ts";
import type { References } from "./references.ts";
import { refusedCall, type RequestScope } from "./scope.ts";
import type { ResourceSpec } from "./spec.ts";

/** The rows of an agent's import its approval page shows: the first 5. */
export const IMPORT_SAMPLE_ROWS: number = 5;

/** The rows with errors a refused agent import names: the first 5 (its caller fixes them and calls again). */
const REFUSAL_ROWS = 5;

type Call = Parameters<NonNullable<ToolDef["Run"]>>[0];

/** What the import tool is made of. */
export interface ImportToolParts {
  spec: ResourceSpec;
  /** Where the records go, and what tells the live feed of each once its batch committed. */
  writes: ImportWrites;
  refs: ImportRefs & Pick<References, "find">;
  db: DB;
  t: Label;
  scope: RequestScope;
  /** The `team` argument of a team resource's tools, else none. */
  team: ToolArg[];
  /** The route it is bound to: the person's upload. */
  route: { route: string; handler: HandlerFunc };
}

/** Returns `<name>_import` of `parts.spec`. */
export function importTool({ spec, writes, refs, db, t, scope, team, route }: ImportToolParts): ToolDef {
  const owner = (call: Pick<Call, "Args" | "Subject">): string => callOwner(spec, scope, call, "write");
  const what = `${spec.Name}_import`;
  const cellMax = cellMaxOf(spec, refs);
  // The call's rows, read and checked now for its owner; the refusal of a text that is no CSV, has no rows or rows with errors.
  const read = (call: Pick<Call, "Args" | "Subject">): { rows: CSVRow[]; checked: CheckedRow[] } => {
    const rows = csvTextRows(String(call.Args.get("csv") ?? ""), cellMax);
    let checked: CheckedRow[];
    try {
      checked = checkedRows(rows, spec, refs, owner(call)).rows;
    } catch (e) {
      if (e instanceof CSVRefused) throw refusedCall(422, `${what}: ${e.message}`);
      throw e;
    }
    if (checked.length === 0) throw refusedCall(422, `${what}: the csv has no rows below its header`);
    const bad = checked.filter((r) => r.errors.length > 0);
    // README "Import": nothing is imported while a row has errors; the caller fixes them, by line, and calls again.
    if (bad.length > 0) {
      const said = bad
        .slice(0, REFUSAL_ROWS)
        .map((r) => `line ${r.line}: ${r.errors.map((e) => problemText(t, e.field, e.problem)).join(" ")}`);
      throw refusedCall(422, `${what}: ${bad.length} rows have errors; ${said.join("; ")}`);
    }
    return { rows, checked };
  };
  // A row as its person reads it: each field's label and text, a reference by the name of the record it points to.
  const shownRow = (req: IncomingMessage, key: string, row: CheckedRow): string =>
    spec.Form.Fields.filter((f) => (row.given[f.Name] ?? "") !== "")
      .map((f) => {
        const text = row.given[f.Name] ?? "";
        const named = f.Kind === Kind.Reference ? (refs.find(key, f, text)?.label ?? text) : text;
        return `${T(req, f.Label)}: ${named}`;
      })
      .join(" · ");
  // A call the tool would refuse previews nothing (preview.ts).
  const preview = unlessRefused((call, req) => {
    const { checked } = read(call);
    const key = owner(call);
    return {
      Kind: "create",
      Title: Tf(req, "resource.import.preview_title", { count: checked.length }),
      Fields: checked.slice(0, IMPORT_SAMPLE_ROWS).map((row) => ({
        Field: `line-${row.line}`,
        Label: Tf(req, "resource.import.at_line", { line: row.line }),
        Value: shownRow(req, key, row),
      })),
      Unchanged: [],
      Stale: false,
      ReferredBy: [],
    };
  });
  return defineAction({
    name: what,
    method: "POST",
    ...route,
    tool: {
      Description: `Creates records in the person's ${t(`${spec.Name}.title`)} from CSV text in the format ${spec.Name}'s CSV export writes: a header row naming the fields (columns that are no field are ignored; a reference by the record's id or its name), UTF-8, separated by commas, semicolons or tabs, within the request's 64 KiB. Refused, naming each line, while a row has errors; after one approval every row is created.`,
      Access: ToolWrite,
      Confirm: interpolate(t("resource.import.confirm_call"), { resource: t(`${spec.Name}.title`) }),
      Args: [...team, { Name: "csv", Type: "string", Required: true, Description: "The CSV text, header row first" }],
    },
    check: (call) => void read(call),
    preview,
    target: (args) => ({ Record: undefined, Fields: [], Context: String(args.get("team") ?? "") }),
    run: async (call) => {
      const { rows } = read(call);
      const who = toolWriter(spec, scope, call);
      const create = importCreate(spec, t, writes.store, who);
      const landed = (record: { id: string; version: number }) => writes.landed(who, record.id, record.version);
      const source = (async function* () {
        yield* rows;
      })();
      const outcome = await writeImport(source, { spec, refs, owner: who.owner, db, t, create, landed });
      return { imported: outcome.imported, skipped: outcome.skipped };
    },
  });
}
