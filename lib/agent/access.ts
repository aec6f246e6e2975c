/*
 * What a tool may do: read (observe) or write (change state, confirmed: SPEC §2.3). An `Access` is its own string form;
 * a string carries no method, so the contract's `Access.String` is a function on `Access` (README, Access.String).
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
