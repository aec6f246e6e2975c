/*
 * The one way a tool runs on a caller's behalf, for every transport: the tool looked up, access, the arguments, the
 * subject, the tool's `Check`, the approval rule, the run, and "tool.call" audit events whatever the outcome (README,
 * "Tool calls"). A write call is on record before it runs: its approval and a "started" event commit together, or
 * nothing runs (lib/events README, "A write and its event"). Every transaction first asks the caller's `StillHeld`, so a
 * call whose session or token ended commits nothing (lib/account README, "Writes in flight"). Arguments are never logged.
 */
import type { Event, EventStore } from "../events/index.ts";
import { NewRef, isLatchError, type Logger } from "../http/index.ts";
import { ToolRead, ToolWrite, type Access } from "./access.ts";
import type { ToolDef, ToolInvocation } from "./action.ts";
import type { Actor } from "./actor.ts";
import type { ApprovalBinding, Approvals } from "./approvals.ts";
import { canonicalArgs, hashToolArgs, parseToolArgs } from "./call.ts";
import { isCredentialEnded } from "./errors.ts";
import type { ToolRegistry } from "./registry.ts";
import { targetOf, type StandingApprovals } from "./standing.ts";
import type { ArgValue } from "./tool.ts";
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
  /** Whether the session or token of the call still acts for `Subject` (`ToolInvocation.StillHeld`); absent: not asked. */
  readonly StillHeld?: (() => boolean) | undefined;
}

/** The outcome of a tool call. */
export type CallOutcome =
  | { kind: "ok"; result: unknown; approval: string | undefined }
  | { kind: "unknown_tool" }
  /** `needs`: the access the caller's token lacks, when that is why (an OAuth client may ask its person for it). */
  | { kind: "forbidden"; reason: string; needs?: Access }
  | { kind: "invalid"; field: string; reason: string }
  | { kind: "approval_required"; approval: string }
  | { kind: "refused"; status: number; reason: string }
  | { kind: "failed"; ref: string }
  /** The caller's session or token ended while the call ran (a change of address, a deletion): nothing of it committed. */
  | { kind: "unauthorized" };

type StepOutcome = { kind: "done"; result: unknown } | Extract<CallOutcome, { kind: "refused" | "failed" | "unauthorized" }>;

/** What a call's event names: the approval or standing approval it spent (none for a human), and its "started" event's sequence. */
type OnRecord = { approval?: string | undefined; standing?: string | undefined; started?: number | undefined };

/** A write call on record, its "started" event appended. */
type Begun = OnRecord & { started: number };

const UNAUTHORIZED: CallOutcome = Object.freeze({ kind: "unauthorized" });

/** What `ToolInvoker` needs. */
export interface ToolInvokerConfig {
  Registry: ToolRegistry;
  Approvals: Approvals;
  Events: EventStore;
  Logger: Logger;
  /** The standing approvals an agent's write call may run under when no single-use approval is there (README). */
  Standing?: StandingApprovals | undefined;
}

/** The audit event type of a tool call. */
export const TOOL_CALL_EVENT = "tool.call";

/** The outcome of a write call's first event, appended before it runs; its outcome follows in a second. */
export const TOOL_CALL_STARTED = "started";

// Each invoker's registry, for the tools endpoint's boot check of the actions' routes (tools-http.ts); not public.
const registries = new WeakMap<ToolInvoker, ToolRegistry>();

/** The registry `invoker` calls tools from. */
export function registryOf(invoker: ToolInvoker): ToolRegistry | undefined {
  return registries.get(invoker);
}

/** Calls tools for callers; see the file header for the order of checks. */
export class ToolInvoker {
  readonly #config: ToolInvokerConfig;

  constructor(config: ToolInvokerConfig) {
    this.#config = config;
    registries.set(this, config.Registry);
  }

  /** Returns the tools `caller` may call: every runnable tool, or only read tools for a read-only token. */
  tools(caller: Caller): ToolDef[] {
    return this.#config.Registry.list().filter((def) => def.Run !== undefined && this.#allowed(caller, def));
  }

  #allowed(caller: Caller, def: ToolDef): boolean {
    return def.Tool.Access === ToolRead || caller.Grant === undefined || caller.Grant.Access === ToolWrite;
  }

  /** Calls tool `name` with the untrusted JSON `input` for `caller`, and audits the call (the file header's order). */
  async call(caller: Caller, name: string, input: unknown): Promise<CallOutcome> {
    const def = this.#config.Registry.get(name);
    if (def === undefined || def.Run === undefined) return this.#withEvent(caller, name, { kind: "unknown_tool" });
    if (!this.#allowed(caller, def)) {
      // SPEC §2.3: a write tool changes state; a token minted for reading may not.
      return this.#withEvent(caller, name, { kind: "forbidden", reason: "this token may only call read tools", needs: ToolWrite });
    }
    const parsed = parseToolArgs(def, input);
    if (!parsed.ok) return this.#withEvent(caller, name, { kind: "invalid", field: parsed.field, reason: parsed.reason });
    const argsHash = hashToolArgs(parsed.args);
    const invocation = { Args: parsed.args, Actor: caller.Actor, Subject: caller.Subject, StillHeld: caller.StillHeld };
    const check = def.Check;
    if (check !== undefined) {
      // A call that cannot run is refused before its person is asked or an approval is spent.
      const checked = await this.#step(caller, def, () => check(invocation));
      if (checked.kind !== "done") return this.#withEvent(caller, name, checked, argsHash);
    }
    if (def.Tool.Access === ToolRead) {
      // A read observes only: its one event follows the run.
      return this.#withEvent(caller, name, await this.#run(caller, def, invocation, undefined), argsHash);
    }
    // SPEC §6.2: a write call is on record before it runs. The approval spent (or requested) and the
    // call's event commit together, or neither does and nothing runs (lib/events README "A write and its event").
    const begun = this.#config.Events.transaction(() => this.#begin(caller, def, parsed.args, argsHash));
    if ("kind" in begun) return begun;
    const allowed = begun.approval ?? begun.standing;
    const approval = allowed === undefined ? undefined : { ID: allowed, Standing: begun.approval === undefined };
    const outcome = await this.#run(caller, def, { ...invocation, Approval: approval }, begun.approval);
    try {
      if (this.#audit(caller, name, argsHash, outcome.kind, begun) === undefined) return UNAUTHORIZED;
    } catch (err) {
      // The effect happened and its "started" event names it: the caller is told the outcome, not a 500.
      this.#config.Logger.error("tool call outcome not recorded", { ref: NewRef(), tool: name, started: begun.started, error: err });
    }
    return outcome;
  }

  // Appends the call's one event (a refusal, or a read after it ran) and returns its outcome: unauthorized when it could not.
  #withEvent(caller: Caller, name: string, outcome: CallOutcome, argsHash = ""): CallOutcome {
    return this.#audit(caller, name, argsHash, outcome.kind) === undefined ? UNAUTHORIZED : outcome;
  }

  // Inside the transaction of `call`: spends the approval an agent's write call needs, or requests one.
  #begin(caller: Caller, def: ToolDef, args: ReadonlyMap<string, ArgValue>, argsHash: string): CallOutcome | Begun {
    // Checked first, in this transaction: a token or session ended since the call began spends no approval.
    if (caller.StillHeld?.() === false) return UNAUTHORIZED;
    let approval: string | undefined;
    let standing: string | undefined;
    // SPEC §2.3: ToolWrite requires an explicitly confirmed call; for an agent only its person's approval counts: this
    // call's, or a standing one of theirs covering it, one of its calls spent in this transaction (README, Standing approvals).
    if (caller.Grant !== undefined) {
      const binding = { Subject: caller.Subject, TokenID: caller.Grant.TokenID, Tool: def.Name, ArgsHash: argsHash };
      approval = this.#config.Approvals.consume(binding);
      if (approval === undefined) standing = this.#config.Standing?.spend(caller.Subject, binding.TokenID, def.Name, targetOf(def, args));
      if (approval === undefined && standing === undefined) {
        const held = this.#request(binding, args);
        this.#audit(caller, def.Name, argsHash, held.kind, held.kind === "approval_required" ? { approval: held.approval } : {});
        return held;
      }
    }
    const started = this.#audit(caller, def.Name, argsHash, TOOL_CALL_STARTED, { approval, standing });
    return started === undefined ? UNAUTHORIZED : { approval, standing, started: started.Seq };
  }

  #request(binding: ApprovalBinding, args: ReadonlyMap<string, ArgValue>): CallOutcome {
    try {
      return { kind: "approval_required", approval: this.#config.Approvals.request(binding, canonicalArgs(args)).ID };
    } catch (err) {
      if (isLatchError(err) && err.code === "ERR_AGENT_TOO_MANY_APPROVALS") return { kind: "refused", status: 429, reason: err.message };
      throw err;
    }
  }

  async #run(caller: Caller, def: ToolDef, invocation: ToolInvocation, approval: string | undefined): Promise<CallOutcome> {
    const ran = await this.#step(caller, def, () => (def.Run as NonNullable<ToolDef["Run"]>)(invocation));
    return ran.kind === "done" ? { kind: "ok", result: ran.result ?? null, approval } : ran;
  }

  /** Performs a tool's `Check` or `Run`: its result, a latch error with a 4xx status as the caller's refusal, anything else a logged failure. */
  async #step(caller: Caller, def: ToolDef, perform: () => unknown): Promise<StepOutcome> {
    try {
      return { kind: "done", result: await perform() };
    } catch (err) {
      // A write inside the tool found the caller's credential ended (lib/manifest's store): answered as an expired token.
      if (isCredentialEnded(err)) return { kind: "unauthorized" };
      if (isLatchError(err) && typeof err.status === "number" && err.status >= 400 && err.status < 500) {
        return { kind: "refused", status: err.status, reason: err.message };
      }
      const ref = NewRef();
      this.#config.Logger.error("tool call failed", { ref, tool: def.Name, actor: caller.Actor.String(), error: err });
      return { kind: "failed", ref };
    }
  }

  // Appends a "tool.call" event, in one transaction with the check that the caller's credential still acts for the
  // subject; undefined, nothing appended, when it does not (the subject's stream was moved or deleted meanwhile).
  #audit(caller: Caller, name: string, argsHash: string, outcome: string, on: OnRecord = {}): Event | undefined {
    const data = {
      tool: name.slice(0, 64),
      args_hash: argsHash,
      approval: on.approval ?? null,
      outcome,
      ...(on.started !== undefined && { started: on.started }),
      ...(on.standing !== undefined && { standing: on.standing }),
      // The token's public row id (the listing's ID, never the secret or its hash): two tokens of one name stay apart.
      ...(caller.Grant !== undefined && { token_id: caller.Grant.TokenID }),
      ...(caller.Via !== undefined && { via: caller.Via }),
    };
    return this.#config.Events.transaction(() =>
      caller.StillHeld?.() === false
        ? undefined
        : this.#config.Events.appendAudit({ Type: TOOL_CALL_EVENT, Actor: caller.Actor, Subject: caller.Subject, Data: data }),
    );
  }
}
