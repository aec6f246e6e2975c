/*
 * What a tool may do. A read tool observes and never changes state; a
 * write tool changes state, so it needs a confirm sentence and an
 * explicitly confirmed call (SPEC.md §2.3). An `Access` is a string whose
 * value is its own string form ("read", "write": what the tools list shows
 * and the tokens table stores), so `toString()` already gives it; a string
 * cannot carry a method of its own, so the contract's `Access.String` is a
 * function on the `Access` object.
 */
import { AgentError } from "./errors.ts";

/** The access levels of a tool, as an `as const` object, and `Access.String`. */
export const Access = {
  ToolRead: "read",
  ToolWrite: "write",
  /**
   * Returns the contract's `Access.String` of `a`: "read" or "write".
   * Throws `AgentError` `ERR_AGENT_INVALID_ACCESS` for any other value.
   *
   * @example
   * Access.String(ToolWrite); // "write"
   */
  String(a: Access): Access {
    if (!isAccess(a)) throw new AgentError("ERR_AGENT_INVALID_ACCESS", 'access string: expected "read" or "write"');
    return a;
  },
} as const;

/** An access level: "read" or "write". */
export type Access = "read" | "write";

/** Observes, never changes state. */
export const ToolRead: typeof Access.ToolRead = Access.ToolRead;

/** Changes state; requires a confirm sentence and a confirmed call. */
export const ToolWrite: typeof Access.ToolWrite = Access.ToolWrite;

/** Reports whether `value` is an `Access`. */
export function isAccess(value: unknown): value is Access {
  return value === ToolRead || value === ToolWrite;
}
