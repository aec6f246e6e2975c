/*
 * What a call outside a form shares, a tool's (tools.ts) and a job's (acting.ts): its writer, asked its team role
 * again in the write's transaction; its values, checked by the form's rules; its refusals, worded as the form's.
 */
import { AgentError, type ToolDef } from "../agent/index.ts";
import type { ActorLike } from "../events/index.ts";
import { BaseCatalog, interpolate } from "../i18n/index.ts";
import type { ChangeApproval } from "./changes.ts";
import { RecordReferenced, ReferenceRefused } from "./references.ts";
import { reachedOwner, refusedCall, type RequestScope } from "./scope.ts";
import type { ResourceSpec } from "./spec.ts";
import type { Writer } from "./store.ts";
import { RuleRefused } from "./rules.ts";
import { parseValues, problemArgs, type FieldProblem, type RecordValues } from "./values.ts";

/** The locale tool arguments are read in: amounts are "1234.56". */
export const TOOL_LOCALE = "en";

/** Translates a catalog key in the application's default locale. */
export type Label = (key: string) => string;

/**
 * The `Writer` of `subject`'s call naming `team` as `actor`: checked now as `reachedOwner` checks a write, and asked again
 * in the write's transaction, with `held` (the token's own check), so a member removed meanwhile commits nothing.
 */
export function callWriter(
  spec: Pick<ResourceSpec, "Name">,
  scope: RequestScope,
  call: { subject: string; team: string; actor: ActorLike; held?: (() => boolean) | undefined; approval?: ChangeApproval | undefined },
): Writer {
  const { subject, team, actor, held, approval } = call;
  return {
    approval,
    owner: reachedOwner(spec, scope, subject, team, "write"),
    person: subject,
    actor,
    stillHeld: () => held?.() !== false && scope.access(subject, team, "write") === "ok",
  };
}

/** What a tool's run receives (lib/agent `ToolInvocation`). */
export type ToolCall = Parameters<NonNullable<ToolDef["Run"]>>[0];

/**
 * The `Writer` of a tool call, reaching the team its `team` argument names (none: the person's own records), attributed
 * to its actor and the approval that allowed it; a member removed while the call waited commits nothing.
 */
export function toolWriter(spec: Pick<ResourceSpec, "Name">, scope: RequestScope, call: ToolCall): Writer {
  return callWriter(spec, scope, {
    subject: call.Subject,
    team: callTeam(call),
    actor: call.Actor,
    held: call.StillHeld,
    approval: call.Approval === undefined ? undefined : { id: call.Approval.ID, standing: call.Approval.Standing },
  });
}

/** The team a tool call names (its `team` argument), "" for none: the person's own records. */
export function callTeam(call: Pick<ToolCall, "Args">): string {
  return String(call.Args.get("team") ?? "");
}

/**
 * The owner a tool call reaches for `action`: the person, or the team it names, which the person must be a member of
 * with a role that allows `action`, asked again on every call (scope.ts `reachedOwner`; OWASP ASVS 5.0 §8.2.2).
 */
export function callOwner(
  spec: Pick<ResourceSpec, "Name">,
  scope: RequestScope,
  call: Pick<ToolCall, "Args" | "Subject">,
  action: "read" | "write",
): string {
  return reachedOwner(spec, scope, call.Subject, callTeam(call), action);
}

/** The application's `label`, else the framework's English (else the key): what a refusal's field problem is worded in. */
export function wording(label: Label | undefined): Label {
  const english = BaseCatalog();
  return label ?? ((key: string): string => english[key] ?? key);
}

/** `field`'s `problem` worded by `t`, after the field's name ("" for a row's text as a whole: the words alone). */
export function problemText(t: Label, field: string, problem: FieldProblem): string {
  const words = interpolate(t(problem.key), problemArgs(problem, t));
  return field === "" ? words : `${field}: ${words}`;
}

// As the form: the first field at fault, named with why (422; a list's filter, 400); `every` field, for a rule across fields.
export function problemRefusal(t: Label, problems: ReadonlyMap<string, FieldProblem>, status = 422, every = false): AgentError {
  const named = [...problems].slice(0, every ? undefined : 1);
  return refusedCall(status, named.map(([field, problem]) => problemText(t, field, problem)).join(" "));
}

/**
 * Typed values (a tool's arguments, a job's values) checked by the form's rules: each becomes the text a form posts (a
 * number as plain digits, read in English; true as "1", false as ""). `partial` (an update): only the fields given.
 */
export function checkedValues(spec: ResourceSpec, t: Label, args: ReadonlyMap<string, unknown>, partial: boolean): RecordValues {
  const given = spec.Form.Fields.filter((f) => !partial || args.has(f.Name));
  const entered = new Map(given.map((f) => [f.Name, enteredText(args.get(f.Name))]));
  const parsed = parseValues({ ...spec, Form: { Fields: given } }, entered, TOOL_LOCALE);
  if (!parsed.ok) throw problemRefusal(t, parsed.errors);
  return parsed.values;
}

/**
 * Runs a store's `write`, its reference refusals as a call's: 422 naming the field for a reference that is unknown or
 * someone else's, 422 naming every field of a broken rule across fields, 409 for a record others refer to. The store checks in the write's transaction, so a record changed
 * since an earlier check gets the same refusal.
 */
export function refusingWrite<R>(spec: Pick<ResourceSpec, "Name">, t: Label, write: () => R): R {
  try {
    return write();
  } catch (e) {
    if (e instanceof ReferenceRefused) throw problemRefusal(t, e.problems);
    // README "Rules across fields": every field the broken rule relates is named, each with why.
    if (e instanceof RuleRefused) throw problemRefusal(t, e.problems, 422, true);
    throw e instanceof RecordReferenced ? referencedRefusal(spec, e) : e;
  }
}

/** A delete refused because records of another resource refer to this one (OnDelete "refuse"): 409, naming them. */
export function referencedRefusal(spec: Pick<ResourceSpec, "Name">, e: RecordReferenced): AgentError {
  return refusedCall(409, `delete ${spec.Name}: ${e.resource.Name} refer to this record (field ${e.field}); change or delete them first`);
}

// A typed argument as the text a form posts (see `checked`).
export function enteredText(value: unknown): string {
  if (value === true) return "1";
  if (value === false || value === undefined || value === null) return "";
  return String(value);
}
