/*
 * Who performed an action: a human or a named agent. The audit form, "human" or "agent:<name>", is stored on every
 * event (SPEC §2.3, §6.2), so a name keeps it unambiguous: no colon, space, control character or uppercase.
 */
import { AgentError } from "./errors.ts";

/** The shape an agent name must have: 1-64 of a-z 0-9 . _ -, starting with a letter or digit. */
export const AGENT_NAME_PATTERN: RegExp = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/** The fields of an `Actor`. */
export interface ActorInit {
  /** True for a person using the application. */
  Human: boolean;
  /** The agent's name; must be empty for a human. @default "" */
  Name?: string;
}

/**
 * The caller of an action. Immutable. Throws `AgentError`
 * `ERR_AGENT_INVALID_ACTOR` for a human with a name or an agent whose name
 * does not match `AGENT_NAME_PATTERN`.
 *
 * @example
 * new Actor({ Human: false, Name: "billing-bot" }).String(); // "agent:billing-bot"
 */
export class Actor {
  /**
   * The actor of the application's scheduled work, `agent:system` (lib/manifest README, "Records from a job"): the
   * contract's audit form has only "human" and "agent:<name>" (SPEC §2.3), so work no person started is an agent, and
   * `AgentTokens.mint` refuses its name so that no person's agent can sign as it.
   */
  static readonly System: Actor = new Actor({ Human: false, Name: "system" });

  /** True for a person, false for an agent. */
  readonly Human: boolean;
  /** The agent's name; "" for a human. */
  readonly Name: string;

  constructor(init: ActorInit) {
    const name = init.Name ?? "";
    if (typeof init.Human !== "boolean") throw new AgentError("ERR_AGENT_INVALID_ACTOR", "new actor: Human must be a boolean");
    // SPEC.md §2.3: the audit form is "human" or "agent:<name>"; a human name would be silently dropped from it.
    if (init.Human && name !== "") {
      throw new AgentError("ERR_AGENT_INVALID_ACTOR", "new actor: a human actor carries no name");
    }
    // SPEC.md §6.2: the name is stored verbatim in every audit event, so it must not break the form.
    if (!init.Human && (typeof name !== "string" || !AGENT_NAME_PATTERN.test(name))) {
      throw new AgentError("ERR_AGENT_INVALID_ACTOR", `new actor: agent name must match ${AGENT_NAME_PATTERN.source}`);
    }
    this.Human = init.Human;
    this.Name = name;
    Object.freeze(this);
  }

  /** Returns the audit form: "human" or "agent:<name>". */
  String(): string {
    return this.Human ? "human" : `agent:${this.Name}`;
  }

  /** Returns the audit form, as `String()`. */
  toString(): string {
    return this.String();
  }
}

const HUMAN: Actor = new Actor({ Human: true });

/** Returns the human actor. */
export function humanActor(): Actor {
  return HUMAN;
}

/** Returns the agent actor named `name`. Throws `AgentError` `ERR_AGENT_INVALID_ACTOR` for a bad name. */
export function agentActor(name: string): Actor {
  return new Actor({ Human: false, Name: name });
}

/**
 * Parses an audit form back into an `Actor`, the inverse of `String()`.
 * Throws `AgentError` `ERR_AGENT_INVALID_ACTOR` for anything else.
 */
export function parseActor(form: string): Actor {
  if (form === "human") return HUMAN;
  if (form.startsWith("agent:")) return agentActor(form.slice("agent:".length));
  throw new AgentError("ERR_AGENT_INVALID_ACTOR", 'parse actor: expected "human" or "agent:<name>"');
}
