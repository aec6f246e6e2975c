/*
 * The actor's audit form on stored events. Every event appended to an
 * event stream records who caused it as "human" or "agent:<name>"
 * (SPEC.md §6.2); `parseActor` reads it back.
 */
import { systemClock, type Clock } from "../http/index.ts";
import type { Actor } from "./actor.ts";

/** The fields every event appended to an event stream carries. */
export interface AuditEvent {
  /** The actor's audit form: "human" or "agent:<name>". */
  readonly Actor: string;
  /** What happened, e.g. "invoice.created". */
  readonly Type: string;
  /** When it happened. */
  readonly At: Date;
}

/** Returns the audit form of `actor`: "human" or "agent:<name>". */
export function auditForm(actor: Actor): string {
  return actor.String();
}

/** Returns a new audit event of `type` by `actor`, stamped with `clock`'s time. */
export function createAuditEvent(actor: Actor, type: string, clock: Clock = systemClock): AuditEvent {
  return Object.freeze({ Actor: auditForm(actor), Type: type, At: clock.now() });
}
