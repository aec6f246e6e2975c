/*
 * What a resource's write tool would do, for the approval page its person reads (lib/agent `ToolPreview`; README
 * "Approval previews"): the record named by `titleField`, each field by its label, values as the list and record pages
 * show them in the request's locale, a reference by the name of the record it points to, looked up for the owner the
 * call reaches as the form's select is. An update's changed fields carry what they replace, its other fields are apart,
 * and a version other than the record's current one is stale; a delete lists the records referring to it. A call the
 * tools would refuse at once (no access, no such record, a value the form refuses) previews nothing, so a record the
 * person may not read shows nothing of it.
 */
import type { IncomingMessage } from "node:http";
import { isAgentError, type CallPreview, type ToolDef } from "../agent/index.ts";
import { T } from "../i18n/index.ts";
import { Kind } from "./kinds.ts";
import type { FieldValue } from "./merge.ts";
import { titleField, type References } from "./references.ts";
import type { Field, ResourceSpec } from "./spec.ts";
import type { RecordStore } from "./store.ts";
import type { StoredRecord } from "./table.ts";
import type { RecordValues } from "./values.ts";
import { displayValue } from "./views.ts";

type Preview = NonNullable<ToolDef["Preview"]>;
type Call = Parameters<Preview>[0];
type PreviewField = CallPreview["Fields"][number];

/** What the previews read: the resource, its store and references, and what the tools make of a call. */
export interface PreviewParts {
  spec: ResourceSpec;
  store: RecordStore;
  refs: Pick<References, "find" | "referrers">;
  /** The owner whose records a call may read; throws the tools' refusal (404, 403) otherwise. */
  reader: (call: Call) => string;
  /** The call's field arguments as the tools check them (all fields, or only those given); throws their refusal. */
  values: (args: Call["Args"], partial: boolean) => RecordValues;
}

/**
 * A value as a preview and a record's history show it: as the list and record pages do in the request's locale, a
 * reference by the name of the record it points to as `owner` may read it (else "unknown").
 */
export function shownValue(req: IncomingMessage, refs: Pick<References, "find">, owner: string, field: Field, value: FieldValue): string {
  if (field.Kind !== Kind.Reference || typeof value !== "string") return displayValue(req, field, value);
  return refs.find(owner, field, value)?.label ?? T(req, "resource.reference_unknown");
}

/**
 * `build` as a tool's preview: a call the tool would refuse at once (its `AgentError`) previews nothing, so a record the
 * person may not read shows nothing of it; any other error is a failure, not "no preview".
 */
export function unlessRefused(build: (call: Call, req: IncomingMessage) => CallPreview | undefined): Preview {
  return (call, req) => {
    try {
      return build(call, req);
    } catch (e) {
      if (isAgentError(e)) return undefined;
      throw e;
    }
  };
}

/** Returns the previews of the create, update and delete tools of `parts.spec`. */
export function recordPreviews({ spec, store, refs, reader, values }: PreviewParts): Record<"create" | "update" | "delete", Preview> {
  const shown = (req: IncomingMessage, owner: string, field: Field, value: FieldValue): string =>
    shownValue(req, refs, owner, field, value);
  const row = (req: IncomingMessage, owner: string, field: Field, value: FieldValue): PreviewField => ({
    Field: field.Name,
    Label: T(req, field.Label),
    Value: shown(req, owner, field, value),
  });
  // The record the call names, as its owner stores it; undefined when unknown or another's.
  const stored = (call: Call): { owner: string; record: StoredRecord; version: number } | undefined => {
    const owner = reader(call);
    const found = store.get(owner, String(call.Args.get("id")));
    return found === undefined ? undefined : { owner, ...found };
  };
  const title = (record: StoredRecord): string => {
    const name = record.values[titleField(spec) ?? ""];
    return typeof name === "string" && name !== "" ? name : record.id;
  };
  const filled = (value: FieldValue | undefined): boolean => value !== undefined && value !== null && value !== "";
  const apart = { Unchanged: [], Stale: false, ReferredBy: [] };
  return {
    create: unlessRefused((call, req) => {
      const owner = reader(call);
      const given = values(call.Args, false);
      const fields = spec.Form.Fields.filter((f) => filled(given[f.Name]));
      return { Kind: "create", Fields: fields.map((f) => row(req, owner, f, given[f.Name] ?? null)), ...apart };
    }),
    update: unlessRefused((call, req) => {
      const found = stored(call);
      if (found === undefined) return undefined;
      const { owner, record } = found;
      const given = values(call.Args, true);
      const was = (f: Field): FieldValue => record.values[f.Name] ?? null;
      // An argument equal to the stored value changes nothing.
      const changes = (f: Field): boolean => f.Name in given && (given[f.Name] ?? null) !== was(f);
      return {
        Kind: "update",
        Title: title(record),
        Fields: spec.Form.Fields.filter(changes).map((f) => ({
          ...row(req, owner, f, given[f.Name] ?? null),
          Before: shown(req, owner, f, was(f)),
        })),
        Unchanged: spec.Form.Fields.filter((f) => !changes(f)).map((f) => row(req, owner, f, was(f))),
        Stale: Number(call.Args.get("version")) !== found.version,
        ReferredBy: [],
      };
    }),
    delete: unlessRefused((call, req) => {
      const found = stored(call);
      if (found === undefined) return undefined;
      const { owner, record } = found;
      const fields = spec.Form.Fields.filter((f) => filled(record.values[f.Name]));
      return {
        Kind: "delete",
        Title: title(record),
        Fields: fields.map((f) => row(req, owner, f, record.values[f.Name] ?? null)),
        Unchanged: [],
        Stale: false,
        ReferredBy: refs.referrers(record.id).map(({ resource, field, count }) => ({
          Resource: resource.Name,
          Label: T(req, `${resource.Name}.title`),
          Count: count,
          OnDelete: field.OnDelete === "clear" ? "clear" : "refuse",
        })),
      };
    }),
  };
}
