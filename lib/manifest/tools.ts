/*
 * A resource's actions as tools (SPEC §2.3; README "Tools are checked before approval", "Field kinds"): ordinary
 * `ToolDef`s bound to the human routes, so any transport over the registry offers them. List and read are `ToolRead`;
 * create, update and delete are `ToolWrite`, with a confirm sentence from the resource's labels and a `Check`, the dry
 * run before a person is asked, refusing what the run would refuse. Arguments are the form's fields typed by kind
 * (`valueArg`), checked by the form's rules; every call is scoped to the subject the caller acts for and attributed to
 * its actor.
 */
import { AgentError, defineAction, ToolRead, ToolWrite, type ToolArg, type ToolDef } from "../agent/index.ts";
import type { HandlerFunc } from "../http/index.ts";
import { interpolate } from "../i18n/index.ts";
import { Kind } from "./kinds.ts";
import { encodeCursor, FILTER_MAX_LENGTH, filterStyle, LIST_PAGE_SIZE, parseListRequest, SEARCH_MAX_WORDS } from "./list.ts";
import { recordPreviews } from "./preview.ts";
import { historyTool } from "./history-tool.ts";
import type { EventStore } from "../events/index.ts";
import {
  callOwner,
  checkedValues,
  enteredText,
  type Label,
  problemRefusal,
  referencedRefusal,
  refusingWrite,
  TOOL_LOCALE,
  toolWriter,
  wording,
} from "./calls.ts";
import { isTeamScoped, noSuchRecord, refusedCall, requestScope, type RequestScope } from "./scope.ts";
import type { Field, ResourceSpec } from "./spec.ts";
import type { References } from "./references.ts";
import { ruleProblems } from "./rules.ts";
import type { RecordStore, UpdateOutcome, Writer } from "./store.ts";
import type { StoredRecord } from "./table.ts";
import { currencyOf, integerRange, valueOut, type RecordValues } from "./values.ts";

/** What the tools ask of a resource's references: a write's checks, and the names and referrers its preview shows. */
type ToolReferences = Pick<References, "problems" | "refusal" | "find" | "referrers" | "recordNames" | "reader">;

type Handlers = Record<"list" | "read" | "history" | "create" | "update" | "delete", HandlerFunc>;

/** The reason of a `busy` update (MERGE_RATE), for the route's log and the tool's caller. */
export function busyMessage(resource: string, retryAfter: number): string {
  return `update ${resource}: too many merged edits for this person; try again in ${retryAfter} s`;
}

/** Returns the six tools of `spec` over `store`, bound to the routes' `handlers`. */
export function resourceTools(
  spec: ResourceSpec,
  store: RecordStore,
  events: EventStore,
  handlers: Handlers,
  refs: ToolReferences,
  label?: (key: string) => string,
  scope: RequestScope = requestScope(spec, undefined),
): ToolDef[] {
  // OWASP ASVS 5.0 §8.2.2: the owner a call reaches, its team's membership asked again on every call (calls.ts).
  const owner = (call: Call, action: "read" | "write"): string => callOwner(spec, scope, call, action);
  // A team member removed while the call waited commits nothing, as an ended token (store.ts `Writer.stillHeld`).
  const writer = (call: ToolInvocation): Writer => toolWriter(spec, scope, call);
  const t = wording(label);
  const parts: Parts = { spec, store, handlers, refs, t, owner, writer, team: teamArgs(spec), events };
  return [...readTools(parts), ...writeTools(parts)];
}

/** What a tool's run receives (lib/agent `ToolInvocation`). */
type ToolInvocation = Parameters<NonNullable<ToolDef["Run"]>>[0];
type Call = Pick<ToolInvocation, "Args" | "Subject">;

/** What the tools are made of: the resource, its store, the routes they are bound to, its references, its labels, whose records a call reaches. */
type Parts = {
  spec: ResourceSpec;
  store: RecordStore;
  handlers: Handlers;
  refs: ToolReferences;
  t: Label;
  owner: (call: Call, action: "read" | "write") => string;
  writer: (call: ToolInvocation) => Writer;
  /** The `team` argument of a team resource's tools, else none. */
  team: ToolArg[];
  events: EventStore;
};

// The tool `<name>_<action>`, bound to the route that does the same for a person.
function binding(spec: ResourceSpec, handlers: Handlers, action: keyof Handlers, method: "GET" | "POST", path = "") {
  return { name: `${spec.Name}_${action}`, method, route: `${spec.Route}${path}`, handler: handlers[action] };
}

/** The `team` argument of a team resource's tools, which say which team in their schema and in tools/list (issue 38); else none. */
export function teamArgs(spec: ResourceSpec): ToolArg[] {
  if (!isTeamScoped(spec)) return [];
  return [
    {
      Name: "team",
      Type: "string",
      Required: true,
      Description: "The id of the team whose records this reaches (one the person is a member of)",
    },
  ];
}

/** The `id` argument of a tool naming one record. */
export function idArg(spec: ResourceSpec): ToolArg {
  return { Name: "id", Type: "string", Required: true, Description: `The record's id (from ${spec.Name}_list)` };
}

// A record as a tool returns it: an amount as a decimal string, a yes/no as a boolean, the rest as stored.
function shown(spec: ResourceSpec, record: StoredRecord, version?: number): Record<string, unknown> {
  return {
    id: record.id,
    ...(version !== undefined && { version }),
    created_at: new Date(record.created_at).toISOString(),
    updated_at: new Date(record.updated_at).toISOString(),
    ...Object.fromEntries(spec.Form.Fields.map((f) => [f.Name, valueOut(f, record.values[f.Name] ?? null)])),
  };
}

// The list's filters as arguments, one per filter (two for a range), as the list page reads them.
function filterArgs(spec: ResourceSpec, t: Label): ToolArg[] {
  return (spec.List.Filters ?? []).flatMap((filter): ToolArg[] => {
    const field = spec.Form.Fields.find((f) => f.Name === filter.Field);
    if (field === undefined) return [];
    const label = t(field.Label);
    switch (filterStyle(field)) {
      case "contains":
        return [{ Name: field.Name, Type: "string", Description: `Only records whose ${label} contains this text` }];
      case "yesno":
        return [{ Name: field.Name, Type: "string", Enum: ["yes", "no"], Description: `Only records whose ${label} is yes, or no` }];
      case "choice":
        return [{ ...valueArg(field, t), Name: field.Name, Description: `Only records whose ${label} is this value` }];
      case "reference":
        return [{ ...valueArg(field, t), Name: field.Name, Description: `Only records whose ${label} is the record with this id` }];
      case "range":
        return ["min", "max"].map((end) => ({
          ...valueArg(field, t),
          Name: `${field.Name}_${end}`,
          Description: `${end === "min" ? "Smallest" : "Largest"} ${valueArg(field, t).Description}, included`,
        }));
    }
  });
}

/**
 * The key of the names of a record's references in a list or read tool's item: `{ <field>: <name> }` for each reference
 * to a record the person may read. No field is named so (a field name starts with a letter), as HAL's `_links`.
 */
const LABELS_KEY = "_labels";

/** `<name>_list`, `<name>_read` and `<name>_history`. */
function readTools({ spec, store, handlers, refs, t, owner, team, events }: Parts): ToolDef[] {
  const title = t(`${spec.Name}.title`);
  const hasReferences = spec.Form.Fields.some((f) => f.Kind === Kind.Reference);
  // The records as the tools return them, each with the names of its references (one query per Reference field).
  const items = (subject: string, records: StoredRecord[], version?: number): Record<string, unknown>[] => {
    const names = refs.recordNames(subject, records);
    const labels = (r: StoredRecord) =>
      Object.fromEntries(
        [...names].flatMap(([field, byID]) => {
          const name = byID.get(String(r.values[field]));
          return name === undefined ? [] : [[field, name]];
        }),
      );
    return records.map((r) => ({ ...shown(spec, r, version), ...(hasReferences && { [LABELS_KEY]: labels(r) }) }));
  };
  const labelsNote = (whose: string): string =>
    hasReferences ? ` ${whose} "${LABELS_KEY}" names the record each reference points to, by field, when the person may read it.` : "";
  return [
    defineAction({
      ...binding(spec, handlers, "list", "GET"),
      // Its pages are the resource's records as MCP resources too (lib/agent RecordsRole): this run, this scope check.
      records: { Collection: spec.Name, Role: "list", Title: spec.Title },
      tool: {
        Description: `Lists the person's ${title}, newest first, ${LIST_PAGE_SIZE} per page; pass "after" from the previous answer for the next page.${labelsNote("Each item's")}`,
        Access: ToolRead,
        Args: [
          ...team,
          {
            Name: "q",
            Type: "string",
            Description: `Search: words separated by spaces, each found in any text field (case and accents aside), at most ${SEARCH_MAX_WORDS} words and ${FILTER_MAX_LENGTH} characters`,
          },
          ...filterArgs(spec, t),
          { Name: "sort", Type: "string", Description: "Column to sort by" },
          { Name: "dir", Type: "string", Description: '"asc" or "desc"' },
          { Name: "after", Type: "string", Description: "The next cursor of the previous page" },
        ],
      },
      run: (call) => {
        const { Args } = call;
        const params = new URLSearchParams([...Args].map(([k, v]): [string, string] => [k, enteredText(v)]));
        const parsed = parseListRequest(spec, params, TOOL_LOCALE);
        if ("bad" in parsed) throw refusedCall(400, `list ${spec.Name}: ${parsed.bad}`);
        if (parsed.errors.size > 0) throw problemRefusal(t, parsed.errors, 400);
        const key = owner(call, "read");
        const page = store.list(key, parsed.query);
        return { items: items(key, page.records), next: page.next === undefined ? null : encodeCursor(page.next) };
      },
    }),
    defineAction({
      ...binding(spec, handlers, "read", "GET", "/{id}"),
      records: { Collection: spec.Name, Role: "read" },
      tool: {
        Description: `Reads one of the person's ${title}, with the version an update must carry.${labelsNote("Its")}`,
        Access: ToolRead,
        Args: [...team, idArg(spec)],
      },
      run: (call) => {
        const key = owner(call, "read");
        const found = store.get(key, String(call.Args.get("id")));
        if (found === undefined) throw noSuchRecord(spec);
        return items(key, [found.record], found.version)[0];
      },
    }),
    historyTool(spec, binding(spec, handlers, "history", "GET", "/{id}/history"), events, [...team, idArg(spec)], (call) => {
      // OWASP ASVS 5.0 §8.2.2 (SPEC §7): the history of a record the caller may not read is the same 404 as the record.
      if (store.get(owner(call, "read"), String(call.Args.get("id"))) === undefined) throw noSuchRecord(spec);
    }),
  ];
}

/** `<name>_create`, `<name>_update` and `<name>_delete`. */
function writeTools({ spec, store, handlers, refs, t, owner, writer, team }: Parts): ToolDef[] {
  const title = t(`${spec.Name}.title`);
  const fieldArgs = (required: boolean): ToolArg[] =>
    spec.Form.Fields.map((f) => ({ ...valueArg(f, t), Name: f.Name, Required: required && f.Required === true }));
  const checked = (args: ReadonlyMap<string, unknown>, partial: boolean): RecordValues => checkedValues(spec, t, args, partial);
  // As the form: a reference to a record that is unknown or someone else's is 422 naming the field (references.ts), a
  // broken rule across fields 422 naming its fields (rules.ts; `stored`: an update's record), before anyone is asked to
  // approve; both are weighed again in the write's transaction.
  const ownReferences = (subject: string, values: RecordValues, stored: RecordValues = {}): void => {
    const problems = refs.problems(subject, values);
    if (problems.size > 0) throw problemRefusal(t, problems);
    const whole = { ...stored, ...values };
    const broken = ruleProblems(spec, whole, refs.reader(subject, whole));
    if (broken.size > 0) throw problemRefusal(t, broken, 422, true);
  };
  const refusing = <R>(write: () => R): R => refusingWrite(spec, t, write);
  const existing = (subject: string, args: ReadonlyMap<string, unknown>): string => {
    const recordID = String(args.get("id"));
    if (store.get(subject, recordID) === undefined) throw noSuchRecord(spec);
    return recordID;
  };
  // An update's outcome other than "ok" as the refusal the caller gets.
  const updateRefusal = (outcome: Exclude<UpdateOutcome, { kind: "ok" }>, version: number): AgentError => {
    if (outcome.kind === "missing") return noSuchRecord(spec);
    if (outcome.kind === "bad_version") return refusedCall(400, `update ${spec.Name}: unknown version`);
    if (outcome.kind === "busy") return refusedCall(429, busyMessage(spec.Name, outcome.retryAfter));
    const fields = outcome.kind === "conflict" ? ` (conflicting: ${[...outcome.conflicts.keys()].join(", ")})` : "";
    return refusedCall(
      409,
      `update ${spec.Name}: changed since version ${version}${fields}; read it again (now version ${outcome.version})`,
    );
  };
  const confirm = (action: string): string => interpolate(t(`resource.confirm.${action}`), { resource: title });
  const preview = recordPreviews({ spec, store, refs, reader: (call) => owner(call, "read"), values: checked });
  // What a call touches, for a standing approval (lib/agent README): the record (none for a create), the form fields
  // given, and the team every matching call must name ("" for a person's own records).
  const target = (hasRecord: boolean) => (args: ReadonlyMap<string, unknown>) => ({
    Record: hasRecord ? String(args.get("id")) : undefined,
    Fields: spec.Form.Fields.filter((f) => args.has(f.Name)).map((f) => f.Name),
    Context: String(args.get("team") ?? ""),
  });
  return [
    defineAction({
      ...binding(spec, handlers, "create", "POST"),
      tool: {
        Description: `Creates a record in the person's ${title}.`,
        Access: ToolWrite,
        Confirm: confirm("create"),
        Args: [...team, ...fieldArgs(true)],
      },
      check: (call) => ownReferences(owner(call, "write"), checked(call.Args, false)),
      preview: preview.create,
      target: target(false),
      run: (call) => refusing(() => store.create(writer(call), checked(call.Args, false))),
    }),
    defineAction({
      ...binding(spec, handlers, "update", "POST", "/{id}"),
      tool: {
        Description: `Changes the given fields of one of the person's ${title}, as read at "version" (from ${spec.Name}_read); a stale or conflicting change is refused with 409.`,
        Access: ToolWrite,
        Confirm: confirm("update"),
        Args: [
          ...team,
          idArg(spec),
          { Name: "version", Type: "number", Required: true, Description: `The version ${spec.Name}_read returned` },
          ...fieldArgs(false),
        ],
      },
      check: (call) => {
        const { Args } = call;
        const version = Number(Args.get("version"));
        const outcome = store.check(owner(call, "write"), String(Args.get("id")), version);
        if (outcome.kind === "missing") throw noSuchRecord(spec);
        const stored = store.get(owner(call, "write"), String(Args.get("id")))?.record.values;
        ownReferences(owner(call, "write"), checked(Args, true), stored);
        if (outcome.kind !== "ok") throw updateRefusal(outcome, version);
      },
      preview: preview.update,
      target: target(true),
      run: (call) => {
        const who = writer(call);
        const recordID = existing(who.owner, call.Args);
        const version = Number(call.Args.get("version"));
        const outcome = refusing(() => store.update(who, recordID, version, checked(call.Args, true)));
        if (outcome.kind !== "ok") throw updateRefusal(outcome, version);
        return { id: recordID, version: outcome.version };
      },
    }),
    defineAction({
      ...binding(spec, handlers, "delete", "POST", "/{id}/delete"),
      tool: {
        Description: `Deletes one of the person's ${title}.`,
        Access: ToolWrite,
        Confirm: confirm("delete"),
        Destructive: true,
        Args: [...team, idArg(spec)],
      },
      check: (call) => {
        const refusal = refs.refusal(existing(owner(call, "write"), call.Args));
        if (refusal !== undefined) throw referencedRefusal(spec, refusal);
      },
      preview: preview.delete,
      target: target(true),
      run: (call) => {
        if (!refusing(() => store.delete(writer(call), String(call.Args.get("id"))))) throw noSuchRecord(spec);
        return { deleted: true };
      },
    }),
  ];
}

/** Returns what a tool argument given for a field holds: its JSON type, and its format, choices or bounds (JSON Schema). */
export function valueArg(field: Field, t: Label): Omit<ToolArg, "Name"> {
  const label = t(field.Label);
  switch (field.Kind) {
    case Kind.Money:
      return { Type: "string", Description: `${label}: amount in ${currencyOf(field)} as a decimal, e.g. "12.34"` };
    case Kind.Integer: {
      const { min, max } = integerRange(field);
      return { Type: "integer", Minimum: min, Maximum: max, Description: `${label}: a whole number` };
    }
    case Kind.Date:
      return { Type: "string", Format: "date", Description: `${label}: a date, YYYY-MM-DD` };
    case Kind.Boolean:
      return { Type: "boolean", Description: `${label}: yes (true) or no (false)` };
    case Kind.Choice: {
      const choices = field.Choices ?? [];
      const listed = choices.map((c) => `"${c.Value}" (${t(c.Label)})`).join(", ");
      return { Type: "string", Enum: choices.map((c) => c.Value), Description: `${label}: one of ${listed}` };
    }
    case Kind.Email:
      return { Type: "string", Format: "email", Description: `${label}: an email address` };
    case Kind.URL:
      return { Type: "string", Format: "uri", Description: `${label}: an http or https address` };
    case Kind.File:
      return {
        Type: "string",
        Description: `${label}: the id of the record's file as read, to keep it, or "" to remove it; a file is attached with ${"`<resource>_attach`"}`,
      };
    case Kind.Reference:
      return {
        Type: "string",
        Description: `${label}: the id of one of the person's ${t(`${field.References ?? ""}.title`)} (from ${field.References ?? ""}_list), or "" for none`,
      };
    default:
      return { Type: "string", Description: label };
  }
}
