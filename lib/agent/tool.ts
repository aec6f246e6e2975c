/*
 * A tool: what an agent reads before calling an action. Its arguments are described (a name, one of four scalar types,
 * required or not, a sentence); a write tool carries the confirm sentence its person approves (SPEC §2.3).
 */
import { isAccess, ToolWrite, type Access } from "./access.ts";
import { AgentError } from "./errors.ts";

/** The type of a tool argument: "integer" is a number with no fractional part. */
export type ArgType = "string" | "number" | "integer" | "boolean";

/** A tool argument's value, of its `ArgType`. */
export type ArgValue = string | number | boolean;

/** One argument of a tool. */
export interface ToolArg {
  /** Name, 1-64 of a-z 0-9 _, starting with a letter; "confirmed" is reserved. */
  readonly Name: string;
  readonly Type: ArgType;
  /** Whether a call must supply it. @default false */
  readonly Required?: boolean;
  /** What the argument means, for the agent. */
  readonly Description: string;
  // What the value may be, told to the agent as JSON Schema; the tool itself checks it, as it checks any input.
  /** The format of a string argument: "date" (YYYY-MM-DD), "email" or "uri". */
  readonly Format?: "date" | "email" | "uri";
  /** The values a string argument takes. */
  readonly Enum?: readonly string[];
  /** The smallest value of a number or integer argument. */
  readonly Minimum?: number;
  /** The largest value of a number or integer argument. */
  readonly Maximum?: number;
}

/** A tool, as declared by an action. Build it with `newTool`. */
export interface Tool {
  /** What the tool does, for the agent. */
  readonly Description: string;
  readonly Access: Access;
  readonly Args: readonly ToolArg[];
  /** The sentence a person confirms before a write call runs; "" for a read tool. */
  readonly Confirm: string;
  /** Whether a call destroys data (MCP's destructiveHint); `newTool` sets it, a DELETE action is destructive. @default false */
  readonly Destructive?: boolean;
}

/** The fields given to `newTool`. */
export interface ToolSpec {
  Description: string;
  Access: Access;
  /** @default [] */
  Args?: readonly ToolArg[];
  /** Required for a write tool, refused for a read tool. @default "" */
  Confirm?: string;
  /**
   * A write tool that destroys data, though its method is not DELETE (an
   * HTML form deletes with POST); refused for a read tool. @default false
   */
  Destructive?: boolean;
}

/** The shape of an argument name. */
export const ARG_NAME_PATTERN: RegExp = /^[a-z][a-z0-9_]{0,63}$/;

const ARG_TYPES: ReadonlySet<unknown> = new Set(["string", "number", "integer", "boolean"]);
const ARG_FORMATS: ReadonlySet<unknown> = new Set(["date", "email", "uri"]);

/**
 * Checks a tool description; each message starts with `operation`. Throws `AgentError` `ERR_AGENT_INVALID_TOOL` for an
 * empty description, an unknown access, a write tool without a confirm sentence, a read tool with one, or a bad,
 * duplicate or reserved argument.
 */
export function validateTool(spec: ToolSpec, operation = "validate tool"): void {
  const fail = (reason: string): never => {
    throw new AgentError("ERR_AGENT_INVALID_TOOL", `${operation}: ${reason}`);
  };
  if (typeof spec.Description !== "string" || spec.Description.trim() === "") fail("empty Description");
  if (!isAccess(spec.Access)) fail('Access must be "read" or "write"');
  const confirm = spec.Confirm ?? "";
  if (typeof confirm !== "string") fail("Confirm must be a string");
  // SPEC.md §2.3: a write tool requires a confirm sentence.
  if (spec.Access === ToolWrite && confirm.trim() === "") fail("a write tool needs a Confirm sentence");
  if (spec.Access !== ToolWrite && confirm !== "") fail("a read tool asks no confirmation; Confirm must be empty");
  if (spec.Destructive !== undefined && typeof spec.Destructive !== "boolean") fail("Destructive must be a boolean");
  if (spec.Access !== ToolWrite && spec.Destructive === true) fail("a read tool destroys nothing; Destructive cannot be true");
  const seen = new Set<string>();
  for (const arg of spec.Args ?? []) {
    if (typeof arg.Name !== "string" || !ARG_NAME_PATTERN.test(arg.Name)) {
      fail(`argument name must match ${ARG_NAME_PATTERN.source}`);
    }
    if (arg.Name === "confirmed") fail('argument name "confirmed" is reserved');
    if (seen.has(arg.Name)) fail(`duplicate argument ${arg.Name}`);
    seen.add(arg.Name);
    if (!ARG_TYPES.has(arg.Type)) fail(`argument ${arg.Name}: Type must be string, number, integer or boolean`);
    const text = arg.Type === "string";
    if (arg.Format !== undefined && (!text || !ARG_FORMATS.has(arg.Format)))
      fail(`argument ${arg.Name}: Format is "date", "email" or "uri", on a string`);
    if (
      arg.Enum !== undefined &&
      (!text || !Array.isArray(arg.Enum) || arg.Enum.length === 0 || arg.Enum.some((v) => typeof v !== "string"))
    ) {
      fail(`argument ${arg.Name}: Enum is a non-empty list of strings, on a string`);
    }
    for (const bound of [arg.Minimum, arg.Maximum]) {
      if (bound !== undefined && ((arg.Type !== "number" && arg.Type !== "integer") || !Number.isFinite(bound))) {
        fail(`argument ${arg.Name}: Minimum and Maximum are finite numbers, on a number or integer`);
      }
    }
    if (typeof arg.Description !== "string" || arg.Description.trim() === "") {
      fail(`argument ${arg.Name}: empty Description`);
    }
  }
}

/**
 * Validates `spec` (see `validateTool`, which lists what it throws) and
 * returns a frozen `Tool` with defaults filled in.
 *
 * @example
 * const tool = newTool({ Description: "Deletes an invoice", Access: ToolWrite,
 *   Confirm: "Delete this invoice?", Args: [{ Name: "id", Type: "string", Required: true, Description: "Invoice id" }] });
 */
export function newTool(spec: ToolSpec): Tool {
  return buildTool(spec, "validate tool", false);
}

/** `newTool` for an action: `operation` names the tool, and a DELETE action is destructive. */
export function buildTool(spec: ToolSpec, operation: string, deletes: boolean): Tool {
  validateTool(spec, operation);
  const args = (spec.Args ?? []).map((a) => Object.freeze({ ...a }));
  return Object.freeze({
    Description: spec.Description,
    Access: spec.Access,
    Args: Object.freeze(args),
    Confirm: spec.Confirm ?? "",
    Destructive: spec.Destructive ?? deletes,
  });
}
