/*
 * What a tool may do. A read tool observes and never changes state; a
 * write tool changes state, so it needs a confirm sentence and an
 * explicitly confirmed call (SPEC.md §2.3). The values are their own
 * string forms, so `Access.String` is the identity on valid values.
 */
import { AgentError } from "./errors.ts";

/** The access levels of a tool, as an `as const` object. */
export const Access = {
  ToolRead: "read",
  ToolWrite: "write",
} as const;

/** An access level: "read" or "write". */
export type Access = (typeof Access)[keyof typeof Access];

/** Observes, never changes state. */
export const ToolRead: typeof Access.ToolRead = Access.ToolRead;

/** Changes state; requires a confirm sentence and a confirmed call. */
export const ToolWrite: typeof Access.ToolWrite = Access.ToolWrite;

/** Reports whether `value` is an `Access`. */
export function isAccess(value: unknown): value is Access {
  return value === ToolRead || value === ToolWrite;
}

/**
 * Returns the contract's `Access.String`: "read" or "write". Throws
 * `AgentError` `ERR_AGENT_INVALID_ACCESS` for any other value.
 */
export function accessString(a: Access): string {
  if (!isAccess(a)) throw new AgentError("ERR_AGENT_INVALID_ACCESS", 'access string: expected "read" or "write"');
  return a;
}
