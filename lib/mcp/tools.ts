/*
 * The registry's tools in MCP's shape: the arguments as a closed `inputSchema`, access and method as behaviour hints, a
 * write tool's confirm sentence in `_meta`. Hints are hints; what protects the person is the approval rule in ToolInvoker.
 */
import { APPROVAL_INSTRUCTION, ToolRead, type CallOutcome, type ToolArg, type ToolDef } from "../agent/index.ts";

/** The `_meta` key carrying a write tool's confirm sentence. */
export const CONFIRM_META_KEY = "latch/confirm";

/** Returns the JSON Schema of `def`'s arguments. */
export function inputSchema(def: ToolDef): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const arg of def.Tool.Args) properties[arg.Name] = argSchema(arg);
  const required = def.Tool.Args.filter((a) => a.Required === true).map((a) => a.Name);
  return { type: "object", properties, ...(required.length > 0 && { required }), additionalProperties: false };
}

/** Returns the JSON Schema of one argument: its type and description, and its format, values or bounds when declared. */
export function argSchema(arg: ToolArg): Record<string, unknown> {
  return {
    type: arg.Type,
    description: arg.Description,
    ...(arg.Format !== undefined && { format: arg.Format }),
    ...(arg.Enum !== undefined && { enum: arg.Enum }),
    ...(arg.Minimum !== undefined && { minimum: arg.Minimum }),
    ...(arg.Maximum !== undefined && { maximum: arg.Maximum }),
  };
}

/**
 * Returns the behaviour hints access implies. MCP's defaults for a non-read-only tool are destructive and not
 * idempotent, so a write tool states both: destructive for DELETE or a tool declared `Destructive` (a form's POST that
 * deletes), idempotent for PUT and DELETE (RFC 9110 §9.2.2). No latch tool reaches outside the application.
 */
export function toolAnnotations(def: ToolDef): Record<string, boolean> {
  if (def.Tool.Access === ToolRead) return { readOnlyHint: true, openWorldHint: false };
  return {
    readOnlyHint: false,
    destructiveHint: def.Tool.Destructive === true || def.Method === "DELETE",
    idempotentHint: def.Method === "PUT" || def.Method === "DELETE",
    openWorldHint: false,
  };
}

/** Returns `def` as an entry of a `tools/list` result. */
export function describeMCPTool(def: ToolDef): Record<string, unknown> {
  return {
    name: def.Name,
    description: def.Tool.Description,
    inputSchema: inputSchema(def),
    annotations: toolAnnotations(def),
    ...(def.Tool.Confirm !== "" && { _meta: { [CONFIRM_META_KEY]: def.Tool.Confirm } }),
  };
}

/** A `tools/call` result whose text the model reads. */
export function textResult(text: string, isError: boolean, structured?: unknown): Record<string, unknown> {
  const isPlainObject = typeof structured === "object" && structured !== null && !Array.isArray(structured);
  return { content: [{ type: "text", text }], ...(isPlainObject && { structuredContent: structured }), ...(isError && { isError: true }) };
}

/**
 * The `tools/call` result of a write call awaiting approval, for a client that cannot open the page itself (no URL-mode
 * elicitation, or its person declined to): a tool error whose text gives the model the URL to show its person.
 */
export function approvalResult(url: string): Record<string, unknown> {
  return textResult(`approval required: ${url}\n${APPROVAL_INSTRUCTION}`, true, { status: "approval_required", approval_url: url });
}

/**
 * Returns the `tools/call` result of every outcome but `unknown_tool`, `approval_required` and `unauthorized`, which
 * the endpoint answers itself. Refusals are tool errors (MCP 2025-11-25 moved argument errors there, so a model can
 * correct its call), never protocol errors.
 */
export function outcomeResult(
  outcome: Exclude<CallOutcome, { kind: "unknown_tool" } | { kind: "approval_required" } | { kind: "unauthorized" }>,
): Record<string, unknown> {
  switch (outcome.kind) {
    case "ok": {
      const text = JSON.stringify(outcome.result) ?? "null";
      return textResult(text, false, outcome.result);
    }
    case "forbidden":
      return textResult(`forbidden: ${outcome.reason}`, true);
    case "invalid":
      return textResult(`invalid arguments: ${outcome.field || "arguments"} ${outcome.reason}`, true);
    case "refused":
      return textResult(outcome.reason, true);
    case "failed":
      return textResult(`the tool failed (reference ${outcome.ref})`, true);
  }
}
