/*
 * An action opts into being a tool (SPEC §2.3): `defineAction` binds the tool to its route and checks that the method
 * agrees with the access, so a read tool is never a state-changing route.
 */
import type { IncomingMessage } from "node:http";
import type { HandlerFunc } from "../http/index.ts";
import { ToolRead } from "./access.ts";
import type { Actor } from "./actor.ts";
import { AgentError } from "./errors.ts";
import { buildTool, type ArgValue, type Tool, type ToolSpec } from "./tool.ts";

/** An HTTP method a tool's route may use. */
export type ToolMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** What a tool's `Run` receives: checked arguments, who calls, and for whom. */
export interface ToolInvocation {
  readonly Args: ReadonlyMap<string, ArgValue>;
  readonly Actor: Actor;
  /** The person the call acts for; scope every read and write to it. */
  readonly Subject: string;
  /**
   * Reports whether the session or token of the call still acts for `Subject`. A tool that writes after awaiting
   * anything asks it inside its write's transaction and commits nothing when it is false (a resource's tools do:
   * lib/manifest); absent when the transport authenticated nothing latch can ask again.
   */
  readonly StillHeld?: (() => boolean) | undefined;
  /**
   * What allowed an agent's write call to run: the id of the approval it spent, or of the standing approval covering it
   * (`Standing` true); absent for a person's call and for reads. A tool records it beside its change (lib/manifest's
   * record history names it).
   */
  readonly Approval?: { readonly ID: string; readonly Standing: boolean } | undefined;
}

/** Performs a tool call and returns a JSON-serializable result. A latch error with a 4xx status is the caller's refusal. */
export type ToolRun = (call: ToolInvocation) => unknown | Promise<unknown>;

/**
 * Checks a call against the current state, changing nothing, before its person is asked to approve it: throws the
 * refusal `Run` would throw now (a latch error with a 4xx status) for a call that cannot run, so no approval is asked
 * for or spent on it. `Run` still checks again when it runs.
 */
export type ToolCheck = (call: ToolInvocation) => void | Promise<void>;

/**
 * What a write call would do to a record, as the person asked to approve it reads it (a tool's `Preview`): values are
 * formatted for the request's locale, fields named by their labels; the call's internal arguments (an id, a version) are
 * never among them.
 */
export interface CallPreview {
  /** What the call does to the record. */
  readonly Kind: "create" | "update" | "delete";
  /** The record's name; absent for a create. */
  readonly Title?: string;
  /**
   * A create's values, an update's changed fields (`Before` the stored value, `Value` the new one), a delete's record as
   * it is.
   */
  readonly Fields: readonly PreviewField[];
  /** The fields an update leaves as they are (an argument equal to the stored value among them); [] otherwise. */
  readonly Unchanged: readonly PreviewField[];
  /** Whether the call names a version other than the record's current one: it would be refused, so nothing to approve. */
  readonly Stale: boolean;
  /** What a delete does to the records referring to this one, per referring resource; [] otherwise. */
  readonly ReferredBy: readonly { Resource: string; Label: string; Count: number; OnDelete: "refuse" | "clear" }[];
}

/** One field of a `CallPreview`: its name, its label and its value as a person reads them. */
export interface PreviewField {
  readonly Field: string;
  readonly Label: string;
  readonly Value: string;
  /** An update's stored value, which `Value` replaces. */
  readonly Before?: string;
}

/**
 * Says what a call would do, for its approval page, changing nothing; undefined when it cannot tell (a record the
 * subject may not read is not found). For pages only: never in a tool listing.
 */
export type ToolPreview = (call: Pick<ToolInvocation, "Args" | "Subject">, req: IncomingMessage) => CallPreview | undefined;

/**
 * What a write call touches, for matching it against a standing approval (README, Standing approvals): the record it
 * changes (undefined when it names none, e.g. a create), the fields it sets, and a context every matching call shares
 * (e.g. the team; "" for none).
 */
export interface CallTarget {
  readonly Record: string | undefined;
  readonly Fields: readonly string[];
  readonly Context: string;
}

/**
 * Declares a read tool as the reader of one collection's records, so a transport may offer them as resources too
 * (lib/mcp: `resources/read` through the "read" tool, `resources/list` through the "list" one), through the tool's own
 * run and so its own scope check (README, "Records as resources").
 */
export interface RecordsRole {
  /** The collection's name, 1-64 of a-z 0-9 _ -, starting with a letter: the URI's first segment. */
  readonly Collection: string;
  /**
   * "read": the tool returns one record, found by its required string arguments (`id` among them), which name it in
   * the URI; "list": it pages the person's records, returning `{ items: [{ id, … }], next }`, the next page read with
   * its string argument `after`.
   */
  readonly Role: "read" | "list";
  /** The field whose value names a record, its title where a listing shows it. @default none: a record is named by its id */
  readonly Title?: string | undefined;
}

/** A registry entry: a tool bound to the route that performs it. */
export interface ToolDef {
  /** Tool name, unique in a registry. */
  readonly Name: string;
  readonly Method: ToolMethod;
  /** Route pattern, starting with "/". */
  readonly Route: string;
  readonly Tool: Tool;
  readonly Handler: HandlerFunc;
  /** Performs the tool for a caller over the tools endpoint; without it the tool is not callable there. */
  readonly Run: ToolRun | undefined;
  /** The dry run of a call before the approval rule (see `ToolCheck`); without it every well-formed call is asked for. */
  readonly Check?: ToolCheck | undefined;
  /** What a call would do, as its approval page shows it (see `ToolPreview`); without it the page shows the arguments. */
  readonly Preview?: ToolPreview | undefined;
  /** What a write call touches (see `CallTarget`); without it a standing approval covers the tool's calls in context "". */
  readonly Target?: ((args: ReadonlyMap<string, ArgValue>) => CallTarget) | undefined;
  /** The records a read tool reads (see `RecordsRole`); without it the tool is a tool only. */
  readonly Records?: RecordsRole | undefined;
}

/** The fields given to `defineAction`. */
export interface ActionSpec {
  /** 1-64 of a-z 0-9 _ -, starting with a letter. */
  name: string;
  method: ToolMethod;
  route: string;
  tool: ToolSpec;
  handler: HandlerFunc;
  /** The tool as a function of its arguments (see `ToolDef.Run`). */
  run?: ToolRun | undefined;
  /** A write tool's dry run against the current state (see `ToolDef.Check`). */
  check?: ToolCheck | undefined;
  /** A write tool's preview for its approval page (see `ToolDef.Preview`). */
  preview?: ToolPreview | undefined;
  /** What a write call touches, for standing approvals (see `ToolDef.Target`). */
  target?: ((args: ReadonlyMap<string, ArgValue>) => CallTarget) | undefined;
  /** A read tool's records, offered as resources (see `ToolDef.Records`). */
  records?: RecordsRole | undefined;
}

/** The shape of a tool name. */
export const TOOL_NAME_PATTERN: RegExp = /^[a-z][a-z0-9_-]{0,63}$/;

const SAFE: ReadonlySet<string> = new Set(["GET"]);
const UNSAFE: ReadonlySet<string> = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/**
 * Declares an action that is also a tool and returns its frozen `ToolDef`.
 * Throws `AgentError` `ERR_AGENT_INVALID_ACTION` for a bad name, method,
 * route, handler, run, check, preview, target or records, or a method that disagrees with the access level (read
 * tools use GET; write tools POST, PUT, PATCH or DELETE), and
 * `ERR_AGENT_INVALID_TOOL` for a bad tool (see `validateTool`).
 *
 * @example
 * const def = defineAction({ name: "list_invoices", method: "GET", route: "/invoices",
 *   tool: { Description: "Lists invoices", Access: ToolRead }, handler: listInvoices });
 */
export function defineAction(spec: ActionSpec): ToolDef {
  const fail = (reason: string): never => {
    throw new AgentError("ERR_AGENT_INVALID_ACTION", `define action: ${reason}`);
  };
  if (typeof spec.name !== "string" || !TOOL_NAME_PATTERN.test(spec.name)) {
    fail(`name must match ${TOOL_NAME_PATTERN.source}`);
  }
  const where = `action ${spec.name}`;
  if (!SAFE.has(spec.method) && !UNSAFE.has(spec.method)) fail(`${where}: method must be GET, POST, PUT, PATCH or DELETE`);
  if (typeof spec.route !== "string" || !/^\/[\x21-\x7e]*$/.test(spec.route)) {
    fail(`${where}: route must start with "/" and hold no spaces or control characters`);
  }
  if (typeof spec.handler !== "function") fail(`${where}: handler must be a function`);
  if (spec.run !== undefined && typeof spec.run !== "function") fail(`${where}: run must be a function`);
  if (spec.check !== undefined && typeof spec.check !== "function") fail(`${where}: check must be a function`);
  if (spec.preview !== undefined && typeof spec.preview !== "function") fail(`${where}: preview must be a function`);
  if (spec.target !== undefined && typeof spec.target !== "function") fail(`${where}: target must be a function`);
  const tool = buildTool(spec.tool, `validate tool ${spec.name}`, spec.method === "DELETE");
  // RFC 9110 §9.2.1: a read tool observes only, so it must sit on a safe method; a write tool must not.
  if ((tool.Access === ToolRead) !== SAFE.has(spec.method)) {
    fail(`${where}: a ${tool.Access} tool cannot use ${spec.method}`);
  }
  if (spec.records !== undefined) {
    const problem = recordsProblem(spec.records, tool);
    if (problem !== undefined) fail(`${where}: records ${problem}`);
  }
  return Object.freeze({
    Name: spec.name,
    Method: spec.method,
    Route: spec.route,
    Tool: tool,
    Handler: spec.handler,
    Run: spec.run,
    Check: spec.check,
    Preview: spec.preview,
    Target: spec.target,
    ...(spec.records !== undefined && { Records: frozenRecords(spec.records) }),
  });
}

/** The shape of a `RecordsRole.Collection`: a URI segment as it is, needing no escape (RFC 3986 §3.3). */
export const COLLECTION_PATTERN: RegExp = /^[a-z][a-z0-9_-]{0,63}$/;

function frozenRecords({ Collection, Role, Title }: RecordsRole): RecordsRole {
  return Object.freeze({ Collection, Role, ...(Title !== undefined && { Title }) });
}

// What a transport relies on to offer a tool's records as resources: a read tool, the arguments its role names.
function recordsProblem(records: RecordsRole, tool: Tool): string | undefined {
  if (tool.Access !== ToolRead) return "are read by a read tool only";
  if (typeof records.Collection !== "string" || !COLLECTION_PATTERN.test(records.Collection))
    return `Collection must match ${COLLECTION_PATTERN.source}`;
  if (records.Title !== undefined && typeof records.Title !== "string") return "Title must be a string";
  const keys = tool.Args.filter((a) => a.Required === true);
  if (records.Role === "read")
    return keys.some((a) => a.Name === "id") && keys.every((a) => a.Type === "string")
      ? undefined
      : 'of a "read" tool are found by required string arguments, "id" among them';
  if (records.Role === "list")
    return tool.Args.some((a) => a.Name === "after" && a.Type === "string" && a.Required !== true)
      ? undefined
      : 'of a "list" tool are paged with an optional string argument "after"';
  return 'Role must be "read" or "list"';
}
