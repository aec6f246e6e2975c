/*
 * A tool call arriving from an agent is untrusted input: a JSON value of
 * the shape { args?: object, confirmed?: boolean }. It is narrowed against
 * the tool's declared arguments, and a write call runs only when the caller
 * says `confirmed: true` in so many words (SPEC.md §2.3), after a person
 * approved the tool's Confirm sentence.
 */
import { ToolWrite } from "./access.ts";
import type { ToolDef } from "./action.ts";
import { AgentError } from "./errors.ts";

/** A tool argument's value. */
export type ArgValue = string | number | boolean;

/** A checked tool call. */
export interface ToolCall {
  /** Supplied arguments by name; absent optional ones are absent. */
  readonly Args: ReadonlyMap<string, ArgValue>;
  /** Whether the call was explicitly confirmed. */
  readonly Confirmed: boolean;
}

/**
 * Refuses a write call that is not explicitly confirmed: `confirmed` must
 * be the boolean `true` (not "true", not 1). Read calls always pass. Throws
 * `AgentError` `ERR_AGENT_UNCONFIRMED` with status 400.
 */
export function assertConfirmed(def: ToolDef, call: { readonly confirmed?: unknown }): void {
  // SPEC.md §2.3: ToolWrite requires an explicitly confirmed call.
  if (def.Tool.Access === ToolWrite && call.confirmed !== true) {
    throw new AgentError("ERR_AGENT_UNCONFIRMED", `call tool: ${def.Name} changes state and needs confirmed: true`, {
      status: 400,
    });
  }
}

/**
 * Narrows an untrusted call body against `def` and returns the checked
 * call. Throws `AgentError` with status 400: `ERR_AGENT_INVALID_CALL` for a
 * body that is not an object, an unknown, missing or mistyped argument;
 * `ERR_AGENT_UNCONFIRMED` for an unconfirmed write call.
 */
export function parseToolCall(def: ToolDef, input: unknown): ToolCall {
  const fail = (reason: string): never => {
    throw new AgentError("ERR_AGENT_INVALID_CALL", `call tool ${def.Name}: ${reason}`, { status: 400 });
  };
  if (typeof input !== "object" || input === null || Array.isArray(input)) return fail("body must be an object");
  const confirmed = "confirmed" in input ? input.confirmed : undefined;
  if (confirmed !== undefined && typeof confirmed !== "boolean") fail("confirmed must be a boolean");
  const rawArgs = "args" in input ? input.args : undefined;
  if (rawArgs !== undefined && (typeof rawArgs !== "object" || rawArgs === null || Array.isArray(rawArgs))) {
    fail("args must be an object");
  }
  const given = new Map<string, unknown>(Object.entries(rawArgs ?? {}));
  const args = new Map<string, ArgValue>();
  for (const arg of def.Tool.Args) {
    const value = given.get(arg.Name);
    given.delete(arg.Name);
    if (value === undefined) {
      if (arg.Required === true) fail(`missing argument ${arg.Name}`);
      continue;
    }
    if (typeof value !== arg.Type) fail(`argument ${arg.Name} must be a ${arg.Type}`);
    if (typeof value === "number" && !Number.isFinite(value)) fail(`argument ${arg.Name} must be finite`);
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") args.set(arg.Name, value);
  }
  // The unknown name is untrusted input, so it stays out of the message.
  if (given.size > 0) fail(`${given.size} unknown argument(s)`);
  assertConfirmed(def, { confirmed });
  return { Args: args, Confirmed: confirmed === true };
}
