/*
 * `<name>_history`, a read tool (so an MCP tool too): a record's history as its page shows it (changes.ts), newest
 * first, `HISTORY_PAGE_SIZE` a call, each change with its actor, the approval that allowed an agent's, its time and
 * each field's value before and after in the read tool's shape (`valueOut`). Its caller is checked as `<name>_read`'s.
 */
import { defineAction, ToolRead, type ToolArg, type ToolDef } from "../agent/index.ts";
import type { EventStore } from "../events/index.ts";
import type { HandlerFunc } from "../http/index.ts";
import { CURSOR_RULE, HISTORY_PAGE_SIZE, historyPage, parseCursor, type FieldChange } from "./changes.ts";
import { refusedCall } from "./scope.ts";
import type { FieldValue } from "./merge.ts";
import type { ResourceSpec } from "./spec.ts";
import { valueOut } from "./values.ts";

type Call = Parameters<NonNullable<ToolDef["Run"]>>[0];

/**
 * The history tool of `spec`, bound to `route`'s handler (the record's page from a cursor); `reach` throws the read
 * tool's refusal (404 for a record the caller may not read) before anything is read.
 */
export function historyTool(
  spec: ResourceSpec,
  route: { name: string; method: "GET" | "POST"; route: string; handler: HandlerFunc },
  events: EventStore,
  args: ToolArg[],
  reach: (call: Call) => void,
): ToolDef {
  const out = (name: string, value: FieldValue | undefined): FieldValue | undefined => {
    const field = spec.Form.Fields.find((f) => f.Name === name);
    return value === undefined || field === undefined ? value : valueOut(field, value);
  };
  const change = (c: FieldChange) => ({
    field: c.field,
    ...("before" in c && { before: out(c.field, c.before) }),
    after: out(c.field, c.after),
  });
  return defineAction({
    ...route,
    name: `${spec.Name}_history`,
    tool: {
      Description: `Lists the changes of one record, newest first, ${HISTORY_PAGE_SIZE} per page: who made each ("human" for the person, "agent:<name>" with the approval that allowed it), when, and each field's value before and after ("values" false: the change names its fields only). Pass "before" from the previous answer for older changes.`,
      Access: ToolRead,
      Args: [...args, { Name: "before", Type: "integer", Minimum: 1, Description: "The next cursor of the previous page" }],
    },
    run: (call) => {
      reach(call);
      const given = call.Args.get("before");
      const before = given === undefined ? undefined : parseCursor(String(given));
      if (before === "bad") throw refusedCall(400, `${spec.Name}_history: ${CURSOR_RULE}`);
      const page = historyPage(events, spec, String(call.Args.get("id")), before);
      return {
        items: page.entries.map((e) => ({
          seq: e.seq,
          at: e.at.toISOString(),
          kind: e.kind,
          actor: e.actor,
          person: e.person,
          approval: e.approval ?? null,
          values: e.values,
          changes: e.changes.map(change),
        })),
        next: page.next ?? null,
      };
    },
  });
}
