/*
 * A record's history (README "A record's history"): what each change of a record records on its stream
 * `<resource>:<id>`, and the stream read back newest first, a page at a time, as the changes a person or a tool reads.
 * An event names its fields' values before and after (an Exclusive record's since issue 43; a Mergeable one's always),
 * unless they do not fit one event (`MAX_EVENT_DATA`): then, as an Exclusive record's older events, it names the fields
 * changed only, and its entry shows them without values. An agent's change names the approval that allowed it.
 * Reads go through the event store's `read` (lib/events README), along the stream's primary key: a page reads at most
 * `HISTORY_PAGE_SIZE` events, however long the stream.
 */
import { MAX_EVENT_DATA, type EventStore } from "../events/index.ts";
import type { FieldValue } from "./merge.ts";
import type { ResourceSpec } from "./spec.ts";
import type { RecordValues } from "./values.ts";

/** The most changes one page of a record's history shows, on the record's page and from `<name>_history`. */
export const HISTORY_PAGE_SIZE: number = 20;

/** What allowed an agent's change: the approval it spent, or the standing approval covering it (lib/agent `ToolInvocation.Approval`). */
export interface ChangeApproval {
  readonly id: string;
  readonly standing: boolean;
}

/** One field a change set: its name (as stored, perhaps no longer declared), and its values when the event holds them. */
export interface FieldChange {
  readonly field: string;
  /** Absent on a creation. */
  readonly before?: FieldValue;
  readonly after: FieldValue;
}

/** One change of a record, as its history shows it. */
export interface HistoryEntry {
  /** Its sequence in the record's stream: the cursor of the page after it. */
  readonly seq: number;
  readonly at: Date;
  /** "created", "updated", "conflict", "deleted", or the event type's last part for another. */
  readonly kind: string;
  /** "human" or "agent:<name>". */
  readonly actor: string;
  /** The person it was done for (the record's owner, or a team record's member). */
  readonly person: string;
  readonly approval: ChangeApproval | undefined;
  /** The fields it set with their values; only their names (`values` false) when the event holds none. */
  readonly changes: readonly FieldChange[];
  readonly values: boolean;
}

/** The entries of one page, newest first, and the cursor of the next (older) page. */
export interface HistoryPage {
  readonly entries: readonly HistoryEntry[];
  readonly next: number | undefined;
}

/** The approval a change records (its writer's): `{ approval }` or `{ standing }`, none for a person's change. */
export function approvalData(approval: ChangeApproval | undefined): Record<string, string> {
  if (approval === undefined) return {};
  return approval.standing ? { standing: approval.id } : { approval: approval.id };
}

/**
 * `data` with `values` added when the whole still fits one event (`MAX_EVENT_DATA`); else `data` alone, whose entry then
 * names the fields without values. A change never fails for its history's sake.
 */
export function withValues(data: Record<string, unknown>, values: Record<string, unknown>): Record<string, unknown> {
  const full = { ...data, ...values };
  return Buffer.byteLength(JSON.stringify(full)) <= MAX_EVENT_DATA ? full : data;
}

/** Why a page request's cursor is refused (400), for the record's page and the tool alike. */
export const CURSOR_RULE = "before must be a change's number (a whole number from 1)";

/** The cursor a page request gives (`before`: the sequence of the oldest entry shown), or undefined for none; "bad" when malformed. */
export function parseCursor(text: string | null | undefined): number | undefined | "bad" {
  if (text === undefined || text === null || text === "") return undefined;
  return /^[1-9][0-9]{0,14}$/.test(text) ? Number(text) : "bad";
}

const record = (value: unknown): RecordValues | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as RecordValues) : undefined;

/** The fields an event's data says changed, with their values when it holds them (both stores' shapes, old and new). */
function changesOf(kind: string, data: Readonly<Record<string, unknown>>): { changes: FieldChange[]; values: boolean } {
  const after = record(data["after"]) ?? record(data["values"]);
  const before = record(data["before"]);
  if (kind === "created") {
    if (after === undefined) return { changes: [], values: false };
    // A creation shows the values it set; a field left empty is no change.
    const set = Object.entries(after).filter(([, value]) => value !== null);
    return { changes: set.map(([field, value]) => ({ field, after: value })), values: true };
  }
  if (kind !== "updated") return { changes: [], values: true };
  if (after !== undefined && before !== undefined)
    return {
      changes: Object.keys(after).map((field) => ({ field, before: before[field] ?? null, after: after[field] ?? null })),
      values: true,
    };
  const names = Array.isArray(data["fields"]) ? data["fields"].filter((f): f is string => typeof f === "string") : [];
  return { changes: names.map((field) => ({ field, after: null })), values: false };
}

/**
 * One page of record `id`'s history, newest first: the events before sequence `before` (from the newest when absent),
 * at most `HISTORY_PAGE_SIZE`. The caller has checked that the person may read the record.
 */
export function historyPage(events: EventStore, spec: Pick<ResourceSpec, "Name">, id: string, before?: number): HistoryPage {
  const stream = `${spec.Name}:${id}`;
  // A stream's sequences run from 1 without gaps (lib/events): the page is the range below the cursor.
  const end = Math.min(before ?? Number.MAX_SAFE_INTEGER, events.version(stream) + 1);
  const from = Math.max(1, end - HISTORY_PAGE_SIZE);
  const read = end <= 1 ? [] : events.read(stream, from, end - from);
  const entries = read.reverse().map((event): HistoryEntry => {
    const kind = event.Type.startsWith(`${spec.Name}.`) ? event.Type.slice(spec.Name.length + 1) : event.Type;
    const approval = typeof event.Data["approval"] === "string" ? event.Data["approval"] : event.Data["standing"];
    return {
      seq: event.Seq,
      at: event.At,
      kind,
      actor: event.Actor,
      person: event.Subject,
      approval: typeof approval === "string" ? { id: approval, standing: !("approval" in event.Data) } : undefined,
      ...changesOf(kind, event.Data),
    };
  });
  return { entries, next: from > 1 ? from : undefined };
}
