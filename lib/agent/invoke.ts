/*
 * The one way a tool runs on a caller's behalf, for the HTTP endpoint now
 * and any other transport later (MCP). `call` does, in order:
 *
 *   1. look the tool up (unknown → "unknown_tool");
 *   2. check access: a read-only token may not call a write tool;
 *   3. narrow the arguments (the field at fault and why);
 *   4. scope: the tool runs for the subject the caller acts for, never
 *      one named in the arguments;
 *   5. check, where the tool declares a `Check`: a dry run against the
 *      current state (a resource's update: the record exists for this
 *      subject, the values pass the form's rules, the version is one the
 *      store accepts)
 *      that refuses a call that cannot run with the refusal its run would
 *      give, so no person is asked to approve it and no approval is spent;
 *   6. apply the approval rule: an agent's write call runs only by
 *      spending a person's approval of this exact call; without one it
 *      leaves a pending request and returns "approval_required". A human's
 *      own call (a form they submitted, a request their session made) is
 *      their confirmation;
 *   7. run (which checks again: the state may change while the person
 *      decides), and
 *   8. append one "tool.call" event to the subject's audit stream, whatever
 *      the outcome: tool, arguments hash, approval id, outcome, the agent
 *      token's public id (`token_id`, for an agent caller) and `via`, the
 *      transport, when the caller names one.
 *
 * Arguments are never logged (they may carry anything); a failure is
 * logged with a reference the caller also gets.
 */
import type { EventStore } from "../events/index.ts";
import { NewRef, isLatchError, type Logger } from "../http/index.ts";
import { ToolRead, ToolWrite } from "./access.ts";
import type { ToolDef } from "./action.ts";
import type { Actor } from "./actor.ts";
import type { Approvals } from "./approvals.ts";
import { canonicalArgs, hashToolArgs, parseToolArgs } from "./call.ts";
import type { ToolRegistry } from "./registry.ts";
import type { TokenGrant } from "./tokens.ts";

/** Who calls a tool. An agent caller carries its token's grant; a human none. */
export interface Caller {
  readonly Actor: Actor;
  /** The person the call acts for. */
  readonly Subject: string;
  /** The verified token of an agent caller. */
  readonly Grant?: TokenGrant | undefined;
  /** The transport the call came over when not the tools endpoint, e.g. "mcp"; recorded in the audit event as `via`. */
  readonly Via?: string | undefined;
}

/** The outcome of a tool call. */
export type CallOutcome =
  | { kind: "ok"; result: unknown; approval: string | undefined }
  | { kind: "unknown_tool" }
  | { kind: "forbidden"; reason: string }
  | { kind: "invalid"; field: string; reason: string }
  | { kind: "approval_required"; approval: string }
  | { kind: "refused"; status: number; reason: string }
  | { kind: "failed"; ref: string };

/** How a tool's `Check` or `Run` ended. */
type StepOutcome = { kind: "done"; result: unknown } | Extract<CallOutcome, { kind: "refused" | "failed" }>;

/** What `ToolInvoker` needs. */
export interface ToolInvokerConfig {
  Registry: ToolRegistry;
  Approvals: Approvals;
  Events: EventStore;
  Logger: Logger;
}

/** The audit event type of a tool call. */
export const TOOL_CALL_EVENT = "tool.call";

/** Calls tools for callers; see the file header for the order of checks. */
export class ToolInvoker {
  readonly #config: ToolInvokerConfig;

  constructor(config: ToolInvokerConfig) {
    this.#config = config;
  }

  /** Returns the tools `caller` may call: every runnable tool, or only read tools for a read-only token. */
  tools(caller: Caller): ToolDef[] {
    return this.#config.Registry.list().filter((def) => def.Run !== undefined && this.#allowed(caller, def));
  }

  #allowed(caller: Caller, def: ToolDef): boolean {
    return def.Tool.Access === ToolRead || caller.Grant === undefined || caller.Grant.Access === ToolWrite;
  }

  /** Calls tool `name` with the untrusted JSON `input` for `caller`, and audits the call. */
  async call(caller: Caller, name: string, input: unknown): Promise<CallOutcome> {
    const def = this.#config.Registry.get(name);
    let argsHash = "";
    let outcome: CallOutcome;
    if (def === undefined || def.Run === undefined) {
      outcome = { kind: "unknown_tool" };
    } else if (!this.#allowed(caller, def)) {
      // SPEC §2.3: a write tool changes state; a token minted for reading may not.
      outcome = { kind: "forbidden", reason: "this token may only call read tools" };
    } else {
      const parsed = parseToolArgs(def, input);
      if (!parsed.ok) {
        outcome = { kind: "invalid", field: parsed.field, reason: parsed.reason };
      } else {
        argsHash = hashToolArgs(parsed.args);
        outcome = await this.#approveAndRun(caller, def, parsed.args, argsHash);
      }
    }
    this.#audit(caller, name, argsHash, outcome);
    return outcome;
  }

  async #approveAndRun(
    caller: Caller,
    def: ToolDef,
    args: ReadonlyMap<string, string | number | boolean>,
    argsHash: string,
  ): Promise<CallOutcome> {
    const invocation = { Args: args, Actor: caller.Actor, Subject: caller.Subject };
    const check = def.Check;
    if (check !== undefined) {
      const checked = await this.#step(caller, def, () => check(invocation));
      if (checked.kind !== "done") return checked;
    }
    let approval: string | undefined;
    // SPEC §2.3: ToolWrite requires an explicitly confirmed call; for an agent only its person's approval counts.
    if (def.Tool.Access === ToolWrite && caller.Grant !== undefined) {
      const binding = { Subject: caller.Subject, TokenID: caller.Grant.TokenID, Tool: def.Name, ArgsHash: argsHash };
      approval = this.#config.Approvals.consume(binding);
      if (approval === undefined) {
        try {
          return { kind: "approval_required", approval: this.#config.Approvals.request(binding, canonicalArgs(args)).ID };
        } catch (err) {
          if (isLatchError(err) && err.code === "ERR_AGENT_TOO_MANY_APPROVALS")
            return { kind: "refused", status: 429, reason: err.message };
          throw err;
        }
      }
    }
    const ran = await this.#step(caller, def, () => (def.Run as NonNullable<ToolDef["Run"]>)(invocation));
    return ran.kind === "done" ? { kind: "ok", result: ran.result ?? null, approval } : ran;
  }

  /** Performs a tool's `Check` or `Run`: its result, a latch error with a 4xx status as the caller's refusal, anything else a logged failure. */
  async #step(caller: Caller, def: ToolDef, perform: () => unknown): Promise<StepOutcome> {
    try {
      return { kind: "done", result: await perform() };
    } catch (err) {
      if (isLatchError(err) && typeof err.status === "number" && err.status >= 400 && err.status < 500) {
        return { kind: "refused", status: err.status, reason: err.message };
      }
      const ref = NewRef();
      this.#config.Logger.error("tool call failed", { ref, tool: def.Name, actor: caller.Actor.String(), error: err });
      return { kind: "failed", ref };
    }
  }

  #audit(caller: Caller, name: string, argsHash: string, outcome: CallOutcome): void {
    const approval = outcome.kind === "ok" || outcome.kind === "approval_required" ? (outcome.approval ?? null) : null;
    this.#config.Events.appendAudit({
      Type: TOOL_CALL_EVENT,
      Actor: caller.Actor,
      Subject: caller.Subject,
      Data: {
        tool: name.slice(0, 64),
        args_hash: argsHash,
        approval,
        outcome: outcome.kind,
        // The token's public row id (the listing's ID, never the secret or its hash): two tokens of one name stay apart.
        ...(caller.Grant !== undefined && { token_id: caller.Grant.TokenID }),
        ...(caller.Via !== undefined && { via: caller.Via }),
      },
    });
  }
}
