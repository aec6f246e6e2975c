/*
 * An action opts into being a tool by declaring a `Tool` (SPEC.md §2.3):
 * `defineAction` binds the tool to the route that performs it and returns
 * the registry entry, `ToolDef`. It checks that the HTTP method agrees with
 * the access level, so a read tool can never be a state-changing route.
 */
import type { HandlerFunc } from "../http/index.ts";
import { ToolRead } from "./access.ts";
import { AgentError } from "./errors.ts";
import { newTool, type Tool, type ToolSpec } from "./tool.ts";

/** An HTTP method a tool's route may use. */
export type ToolMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** A registry entry: a tool bound to the route that performs it. */
export interface ToolDef {
  /** Tool name, unique in a registry. */
  readonly Name: string;
  readonly Method: ToolMethod;
  /** Route pattern, starting with "/". */
  readonly Route: string;
  readonly Tool: Tool;
  readonly Handler: HandlerFunc;
}

/** The fields given to `defineAction`. */
export interface ActionSpec {
  /** 1-64 of a-z 0-9 _ -, starting with a letter. */
  name: string;
  method: ToolMethod;
  route: string;
  tool: ToolSpec;
  handler: HandlerFunc;
}

/** The shape of a tool name. */
export const TOOL_NAME_PATTERN: RegExp = /^[a-z][a-z0-9_-]{0,63}$/;

const SAFE: ReadonlySet<string> = new Set(["GET"]);
const UNSAFE: ReadonlySet<string> = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/**
 * Declares an action that is also a tool and returns its frozen `ToolDef`.
 * Throws `AgentError` `ERR_AGENT_INVALID_ACTION` for a bad name, method,
 * route or handler, or a method that disagrees with the access level (read
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
  const tool = newTool(spec.tool);
  // RFC 9110 §9.2.1: a read tool observes only, so it must sit on a safe method; a write tool must not.
  if ((tool.Access === ToolRead) !== SAFE.has(spec.method)) {
    fail(`${where}: a ${tool.Access} tool cannot use ${spec.method}`);
  }
  return Object.freeze({ Name: spec.name, Method: spec.method, Route: spec.route, Tool: tool, Handler: spec.handler });
}
