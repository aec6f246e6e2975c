/*
 * Tool arguments arriving from a caller are untrusted input: a JSON object
 * narrowed against the tool's declared arguments (`parseToolArgs`), then
 * hashed in canonical form so an approval binds the exact call
 * (`hashToolArgs`). `parseToolCall` is the older envelope
 * `{ args?, confirmed? }`; over HTTP a caller's own `confirmed` proves
 * nothing, and an agent's write call waits for a person's approval.
 */
import { createHash } from "node:crypto";
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

/** The outcome of `parseToolArgs`: the checked arguments, or the field at fault and why. */
export type ParsedArgs =
  | { ok: true; args: ReadonlyMap<string, ArgValue> }
  | { ok: false; field: string; reason: string };

/**
 * Narrows an untrusted JSON object of arguments against `def`'s declared
 * arguments. A missing required, mistyped, non-finite or undeclared
 * argument is reported with its field ("" when the body is not an object).
 * `confirmed` is dropped unread: a caller's own claim to have confirmed a
 * call means nothing (approvals.ts holds the confirmation that counts).
 */
export function parseToolArgs(def: ToolDef, input: unknown): ParsedArgs {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    return { ok: false, field: "", reason: "arguments must be a JSON object" };
  }
  const given = new Map<string, unknown>(Object.entries(input));
  given.delete("confirmed");
  const args = new Map<string, ArgValue>();
  for (const arg of def.Tool.Args) {
    const value = given.get(arg.Name);
    given.delete(arg.Name);
    if (value === undefined) {
      if (arg.Required === true) return { ok: false, field: arg.Name, reason: "is required" };
      continue;
    }
    if (typeof value !== arg.Type) return { ok: false, field: arg.Name, reason: `must be a ${arg.Type}` };
    if (typeof value === "number" && !Number.isFinite(value)) return { ok: false, field: arg.Name, reason: "must be finite" };
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") args.set(arg.Name, value);
  }
  const [unknown] = given.keys();
  if (unknown !== undefined) return { ok: false, field: unknown.slice(0, 64), reason: "is not an argument of this tool" };
  return { ok: true, args };
}

/**
 * Returns the SHA-256 (hex) of the canonical form of `args`: a JSON object
 * with keys in code-unit order. Equal arguments hash equal whatever order
 * they were sent in; any other value hashes differently.
 */
export function hashToolArgs(args: ReadonlyMap<string, ArgValue>): string {
  return createHash("sha256").update(JSON.stringify(canonicalArgs(args))).digest("hex");
}

/** Returns `args` as a plain object with sorted keys. */
export function canonicalArgs(args: ReadonlyMap<string, ArgValue>): Record<string, ArgValue> {
  const out: Record<string, ArgValue> = {};
  for (const name of [...args.keys()].sort()) out[name] = args.get(name) as ArgValue;
  return out;
}

/**
 * Narrows an untrusted call body `{ args?, confirmed? }` against `def` and
 * returns the checked call. Throws `AgentError` with status 400:
 * `ERR_AGENT_INVALID_CALL` for a body that is not an object, an unknown,
 * missing or mistyped argument; `ERR_AGENT_UNCONFIRMED` for an unconfirmed
 * write call. Tool calls over HTTP do not use it: there an agent's
 * `confirmed` is ignored and approvals decide (see `ToolInvoker`).
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
  const parsed = parseToolArgs(def, rawArgs ?? {});
  if (!parsed.ok) {
    // The unknown name is untrusted input, so it stays out of the message.
    if (parsed.reason === "is not an argument of this tool") fail("unknown argument(s)");
    else fail(parsed.reason === "is required" ? `missing argument ${parsed.field}` : `argument ${parsed.field} ${parsed.reason}`);
  }
  assertConfirmed(def, { confirmed });
  return { Args: parsed.ok ? parsed.args : new Map(), Confirmed: confirmed === true };
}
