/*
 * `<name>_bulk`, a write tool (so an MCP tool too; README "Bulk changes"): the list page's bulk change as one call, so
 * one approval. Its check weighs the change as the form does (bulk.ts `weighBulk`, every refused record named) before a
 * person is asked; its preview lists every record it changes, by name, with the field's value before → after (or the
 * record, for a delete); its run applies it in one transaction, each record's event attributed to the agent with the
 * approval that allowed it.
 */
import { defineAction, isAgentError, ToolWrite, type ArgValue, type CallPreview, type ToolArg, type ToolDef } from "../agent/index.ts";
import type { HandlerFunc } from "../http/index.ts";
import { interpolate, T, Tf } from "../i18n/index.ts";
import { BULK_MAX, bulkFields, BulkRefused, readBulk, weighBulk, type BulkApply, type BulkChange, type BulkParts } from "./bulk.ts";
import { callOwner, callTeam, TOOL_LOCALE, toolWriter, type Label, type ToolCall } from "./calls.ts";
import { shownValue } from "./preview.ts";
import type { References } from "./references.ts";
import { refusedCall, type RequestScope } from "./scope.ts";
import { teamArgs } from "./tools.ts";

type Call = Pick<ToolCall, "Args" | "Subject">;

/**
 * What a delete's target names in place of fields: not a field name (validate.ts NAME_PATTERN), so a standing approval
 * of a set never covers a delete, nor one of a delete a set.
 */
const DELETE_TARGET = "(delete)";

/** What the bulk tool is made of: what `weighBulk` reads, the names its preview shows, whose records a call reaches, its labels. */
export interface BulkToolParts extends BulkParts {
  readonly refs: BulkParts["refs"] & Pick<References, "find" | "referrers">;
  readonly scope: RequestScope;
  readonly t: Label;
  readonly apply: BulkApply;
  /** The route it is bound to, `POST <Route>/bulk`. */
  readonly handler: HandlerFunc;
}

/** Returns `<name>_bulk` of `parts.spec`. */
export function bulkTool(parts: BulkToolParts): ToolDef {
  const { spec, scope, t, apply, refs } = parts;
  const title = t(`${spec.Name}.title`);
  const text = (args: ReadonlyMap<string, ArgValue>, name: string): string => String(args.get(name) ?? "");
  // The change a call asks for, weighed as the form weighs it; a refusal is the call's, naming every record at fault.
  const weighed = (call: Call, action: "read" | "write") => {
    try {
      const input = {
        action: text(call.Args, "action"),
        ids: text(call.Args, "ids").split(/[\s,]+/),
        field: text(call.Args, "field"),
        value: text(call.Args, "value"),
      };
      const change = readBulk(spec, input, TOOL_LOCALE, t);
      const owner = callOwner(spec, scope, call, action);
      return { change, owner, records: weighBulk(parts, owner, change, t) };
    } catch (e) {
      throw e instanceof BulkRefused ? refusedCall(e.status, `bulk ${spec.Name}: ${e.reasons.join("; ")}`) : e;
    }
  };
  const args: ToolArg[] = [
    ...teamArgs(spec),
    {
      Name: "action",
      Type: "string",
      Required: true,
      Enum: ["set", "delete"],
      Description: '"set" one field to one value on every record, or "delete" them',
    },
    {
      Name: "ids",
      Type: "string",
      Required: true,
      Description: `The records' ids (from ${spec.Name}_list), separated by commas or spaces, at most ${BULK_MAX}`,
    },
    { Name: "field", Type: "string", Enum: bulkFields(spec).map((f) => f.Name), Description: 'For "set": the field to set' },
    { Name: "value", Type: "string", Description: `For "set": the value, as ${spec.Name}_update takes it, as text ("" for none)` },
  ];
  return defineAction({
    name: `${spec.Name}_bulk`,
    method: "POST",
    route: `${spec.Route}/bulk`,
    handler: parts.handler,
    tool: {
      Description: `Deletes up to ${BULK_MAX} of the person's ${title}, or sets one field to one value on each, all or none, with one approval.`,
      Access: ToolWrite,
      Confirm: interpolate(t("resource.bulk.confirm"), { resource: title }),
      Destructive: true,
      Args: args,
    },
    check: (call) => void weighed(call, "write"),
    preview: (call, req) => {
      let found: ReturnType<typeof weighed>;
      try {
        found = weighed(call, "read");
      } catch (e) {
        // A call the tool would refuse previews nothing (preview.ts); anything else is a failure, not "no preview".
        if (isAgentError(e)) return undefined;
        throw e;
      }
      return bulkPreview(req, refs, found.change, found.owner, found.records);
    },
    // A standing approval covers only calls changing the same records and field, in the same team.
    target: (args) => ({
      Record: text(args, "ids")
        .split(/[\s,]+/)
        .filter((id) => id !== "")
        .sort()
        .join(","),
      // OWASP ASVS 5.0 §8.2.1: a standing approval grants no more than the person saw, so a set's never covers a delete.
      Fields: [text(args, "action") === "set" ? text(args, "field") : DELETE_TARGET],
      Context: callTeam({ Args: args }),
    }),
    run: (call) => {
      const { change } = weighed(call, "write");
      const who = toolWriter(spec, scope, call);
      try {
        const done = apply(who, change, t);
        return { [change.action === "delete" ? "deleted" : "updated"]: done.map((d) => d.id) };
      } catch (e) {
        throw e instanceof BulkRefused ? refusedCall(e.status, `bulk ${spec.Name}: ${e.reasons.join("; ")}`) : e;
      }
    },
  });
}

/** What the approval page shows of a bulk change: every record by name, and the field's value before → after on each. */
function bulkPreview(
  req: Parameters<NonNullable<ToolDef["Preview"]>>[1],
  refs: Pick<References, "find" | "referrers">,
  change: BulkChange,
  owner: string,
  records: ReturnType<typeof weighBulk>,
): CallPreview {
  const common = { Title: Tf(req, "resource.bulk.preview", { count: records.length }), Unchanged: [], Stale: false };
  if (change.action === "set") {
    const { field, value } = change;
    const shown = (v: Parameters<typeof shownValue>[4]): string => shownValue(req, refs, owner, field, v);
    return {
      Kind: "update",
      ...common,
      Fields: records.map((r) => ({
        Field: r.record.id,
        Label: `${r.name} · ${T(req, field.Label)}`,
        Before: shown(r.record.values[field.Name] ?? null),
        Value: shown(value),
      })),
      ReferredBy: [],
    };
  }
  // What deleting them does to the records referring to them, summed per referring resource.
  const referred = new Map<string, CallPreview["ReferredBy"][number]>();
  for (const r of records)
    for (const { resource, field, count } of refs.referrers(r.record.id)) {
      const before = referred.get(resource.Name)?.Count ?? 0;
      const OnDelete = field.OnDelete === "clear" ? "clear" : "refuse";
      referred.set(resource.Name, { Resource: resource.Name, Label: T(req, `${resource.Name}.title`), Count: before + count, OnDelete });
    }
  return {
    Kind: "delete",
    ...common,
    Fields: records.map((r) => ({ Field: r.record.id, Label: r.name, Value: r.record.id })),
    ReferredBy: [...referred.values()],
  };
}
