/*
 * What an event is, and the checks it passes, once, before it is stored: ids without control characters, a dotted
 * lowercase type, a JSON object as data, the actor in its audit form (SPEC §2.3, §6.2), from any object with `String()`.
 */
import { EventsError } from "./errors.ts";

/** Anything with the contract's `Actor.String()`: lib/agent's `Actor`. */
export interface ActorLike {
  String(): string;
}

/** A stored event. */
export interface Event {
  /** The stream it belongs to. */
  readonly Stream: string;
  /** Its position in the stream, from 1, without gaps. */
  readonly Seq: number;
  /** What happened, e.g. "tool.call". */
  readonly Type: string;
  /** The event's payload, a JSON object. */
  readonly Data: Readonly<Record<string, unknown>>;
  /** Who caused it, in audit form: "human" or "agent:<name>". */
  readonly Actor: string;
  /** The person it was done for (the session subject). */
  readonly Subject: string;
  /** When it was appended. */
  readonly At: Date;
}

/** The fields every append carries. */
export interface EventInput {
  /** Dotted lowercase name, e.g. "invoice.created". */
  Type: string;
  /** A JSON object; at most `MAX_EVENT_DATA` bytes serialized. */
  Data: Readonly<Record<string, unknown>>;
  Actor: ActorLike;
  Subject: string;
}

/** The largest serialized `Data`, in bytes: 16 KiB. */
export const MAX_EVENT_DATA: number = 16 * 1024;

/** The shape of an event type. */
export const EVENT_TYPE_PATTERN: RegExp = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$/;

/** The audit form of an actor (lib/agent's `AGENT_NAME_PATTERN` after "agent:"). */
export const AUDIT_ACTOR_PATTERN: RegExp = /^(human|agent:[a-z0-9][a-z0-9._-]{0,63})$/;

/** The longest subject, in characters: any email address (254, RFC 5321 §4.5.3.1.3) fits. */
export const MAX_SUBJECT: number = 256;

/** The prefix of a person's audit stream: `audit:<subject>`. */
export const AUDIT_STREAM_PREFIX = "audit:";

/** The longest stream id: the audit stream of the longest subject, so every subject's stream can be read back. */
export const MAX_STREAM: number = AUDIT_STREAM_PREFIX.length + MAX_SUBJECT;

/** The refusal of a malformed event or read (400): `operation`, then what is wrong. */
export function invalidEvent(reason: string, operation = "append event"): EventsError {
  return new EventsError("ERR_EVENTS_INVALID_EVENT", `${operation}: ${reason}`, { status: 400 });
}

/** Throws `EventsError` ERR_EVENTS_INVALID_EVENT (400) unless `id` is a usable stream id (`what` "Stream") or subject. */
export function checkID(what: "Stream" | "Subject", id: unknown): asserts id is string {
  const max = what === "Stream" ? MAX_STREAM : MAX_SUBJECT;
  // Control characters would make stored ids ambiguous on any line-based display or log of them; a lone surrogate reads
  // back from SQLite as other characters, so the event would no longer hash to its stored hash (chain.ts).
  if (typeof id !== "string" || id === "" || id.length > max || /[\u0000-\u001f\u007f]|\p{Cs}/u.test(id)) {
    throw invalidEvent(`${what} must be 1-${max} characters without control characters or lone surrogates`);
  }
}

/**
 * Checks `input` and returns the columns to store. Throws `EventsError`
 * ERR_EVENTS_INVALID_EVENT (status 400) naming the field at fault.
 */
export function checkEvent(input: EventInput): { type: string; data: string; actor: string; subject: string } {
  if (typeof input.Type !== "string" || input.Type.length > 64 || !EVENT_TYPE_PATTERN.test(input.Type)) {
    throw invalidEvent(`Type must match ${EVENT_TYPE_PATTERN.source} (at most 64 characters)`);
  }
  const data: unknown = input.Data;
  if (typeof data !== "object" || data === null || Array.isArray(data)) throw invalidEvent("Data must be a JSON object");
  let json: string;
  try {
    json = JSON.stringify(data);
  } catch {
    throw invalidEvent("Data must serialize as JSON");
  }
  if (Buffer.byteLength(json) > MAX_EVENT_DATA) throw invalidEvent(`Data is larger than ${MAX_EVENT_DATA} bytes`);
  const actor = typeof input.Actor?.String === "function" ? input.Actor.String() : undefined;
  // SPEC §6.2: every event records the actor in audit form.
  if (typeof actor !== "string" || !AUDIT_ACTOR_PATTERN.test(actor)) throw invalidEvent('Actor must be "human" or "agent:<name>"');
  checkID("Subject", input.Subject);
  return { type: input.Type, data: json, actor, subject: input.Subject };
}
