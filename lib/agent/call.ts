/*
 * A call's arguments, untrusted: narrowed against the tool's declared ones (`parseToolArgs`), then hashed in canonical
 * form so an approval binds the exact call (`hashToolArgs`).
 */
import { createHash } from "node:crypto";
import type { ToolDef } from "./action.ts";
import type { ArgValue } from "./tool.ts";

/** The outcome of `parseToolArgs`: the checked arguments, or the field at fault and why. */
export type ParsedArgs = { ok: true; args: ReadonlyMap<string, ArgValue> } | { ok: false; field: string; reason: string };

/**
 * Narrows an untrusted JSON object of arguments against `def`'s: a missing required, mistyped, non-finite or
 * undeclared argument is reported with its field ("" when the body is not an object); the tool checks the rest (README,
 * "Tool arguments"). `confirmed` is dropped unread: a caller's own claim to have confirmed means nothing (approvals.ts).
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
    if (typeof value !== (arg.Type === "integer" ? "number" : arg.Type)) {
      return { ok: false, field: arg.Name, reason: `must be a${arg.Type === "integer" ? "n" : ""} ${arg.Type}` };
    }
    if (typeof value === "number" && !Number.isFinite(value)) return { ok: false, field: arg.Name, reason: "must be finite" };
    if (arg.Type === "integer" && !Number.isSafeInteger(value)) return { ok: false, field: arg.Name, reason: "must be a whole number" };
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") args.set(arg.Name, value);
  }
  const [unknown] = given.keys();
  if (unknown !== undefined) return { ok: false, field: unknown.slice(0, 64), reason: "is not an argument of this tool" };
  return { ok: true, args };
}

/**
 * Returns the SHA-256 (hex) of the canonical form of `args`: a JSON object with keys in code-unit order. Equal
 * arguments hash equal whatever order they were sent in; any other value hashes differently.
 */
export function hashToolArgs(args: ReadonlyMap<string, ArgValue>): string {
  return createHash("sha256")
    .update(JSON.stringify(canonicalArgs(args)))
    .digest("hex");
}

/** Returns `args` as a plain object with sorted keys. */
export function canonicalArgs(args: ReadonlyMap<string, ArgValue>): Record<string, ArgValue> {
  const out: Record<string, ArgValue> = {};
  for (const name of [...args.keys()].sort()) out[name] = args.get(name) as ArgValue;
  return out;
}
