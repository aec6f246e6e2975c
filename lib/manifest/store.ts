/*
 * The two stores a resource can have (SPEC §2.5 StoreKind), behind one interface the routes and tools use
 * (README "Exclusive versions", "Mergeable merges"). Exclusive: the table is the store, an update lands only on
 * the version it was rendered from. Mergeable: one event stream per record, `<resource>:<id>`, folded into the
 * table as a projection; each field of an update is merged against what happened since its base (merge.ts).
 */
import { randomBytes } from "node:crypto";
import type { DB } from "../db/index.ts";
import { credentialEnded } from "../agent/index.ts";
import { type ActorLike, type EventStore } from "../events/index.ts";
import { systemClock, type Clock } from "../http/index.ts";
import { MemoryLog, takeLimit, immediately } from "../internal/index.ts";
import { approvalData, withValues } from "./changes.ts";
import { MERGE_RATE, mergeField, needsLineMerge, type FieldValue } from "./merge.ts";
import type { ResourceSpec } from "./spec.ts";
import { LIST_PAGE_SIZE, RecordTable, type ListQuery, type StoredRecord } from "./table.ts";
import type { RecordValues } from "./values.ts";

/**
 * How many events a Mergeable update's base version may lag the record's head; further behind, the update is refused as
 * stale (the current record shown with the submitted text), so merging reads at most this many events.
 */
export const MERGE_MAX_BEHIND: number = 100;

/** Who writes: the owner the record belongs to (the subject acted for, or the team), the person, and the actor. */
export interface Writer {
  owner: string;
  /** The person acted for, when `owner` is a team (the record's author, its events' Subject). @default owner */
  person?: string | undefined;
  actor: ActorLike;
  /**
   * Whether the session or token the write came with still acts for `owner`, asked first in the write's transaction
   * (lib/internal credential.ts); absent: not asked.
   */
  stillHeld?: (() => boolean) | undefined;
  /** What allowed an agent's write (a tool call's `Approval`), recorded on its event for the record's history. */
  approval?: { readonly id: string; readonly standing: boolean } | undefined;
}

/** A conflicting field of a Mergeable update: the value submitted and the value stored meanwhile. */
export interface FieldConflict {
  mine: FieldValue;
  theirs: FieldValue;
}

/** The outcome of an update. */
export type UpdateOutcome =
  | { kind: "ok"; version: number }
  | { kind: "missing" }
  | { kind: "bad_version" }
  | { kind: "stale"; current: StoredRecord; version: number }
  /** The person made MERGE_RATE line merges within its window: nothing stored; room again in `retryAfter` whole seconds. */
  | { kind: "busy"; retryAfter: number }
  | { kind: "conflict"; current: StoredRecord; version: number; merged: RecordValues; conflicts: Map<string, FieldConflict> };

/** What `RecordStore.list` takes for a query field it is not given. */
const LIST_DEFAULTS: ListQuery = { filters: [], search: [], sort: "created_at", desc: true, after: undefined, limit: LIST_PAGE_SIZE };

/** A resource's records, scoped to their owner. */
export interface RecordStore {
  /**
   * One page of the owner's records. Every query field is optional: no filter, sorted by `created_at` newest first, the
   * first page, `LIST_PAGE_SIZE` (20) records.
   */
  list(owner: string, query?: Partial<ListQuery>): { records: StoredRecord[]; next: [FieldValue, string] | undefined };
  /** The record and the version an edit of it must carry, or undefined (unknown and foreign alike). */
  get(owner: string, id: string): { record: StoredRecord; version: number } | undefined;
  create(who: Writer, values: RecordValues): { id: string; version: number };
  /** Applies `mine` (the fields given) to record `id` as edited from `version`. */
  update(who: Writer, id: string, version: number, mine: RecordValues): UpdateOutcome;
  /**
   * What `update` from `version` would answer now before weighing any value, changing nothing: "missing",
   * "bad_version", "stale", or "ok" with the current version. A Mergeable conflict shows only when the update merges.
   */
  check(owner: string, id: string, version: number): UpdateOutcome;
  delete(who: Writer, id: string): boolean;
}

/**
 * What a store asks, in a create's or update's transaction, of `owner`'s record as it would be stored: it throws to
 * refuse the write (rules.ts `ruleCheck`: `RuleRefused`), so nothing is stored.
 */
export type RulesCheck = (owner: string, values: RecordValues) => void;

const noRules: RulesCheck = () => {};

/** The person a write acts for: its events' Subject, and a team record's author. */
export function personOf(who: Writer): string {
  return who.person ?? who.owner;
}

/**
 * A record's id: 12 base64url characters, never starting with "-". A spreadsheet reads a cell starting with "-" as a
 * formula, so the CSV export neutralises it with a quote (OWASP CSV injection) and the id read back would not match.
 */
export function newID(): string {
  for (;;) {
    const id = randomBytes(9).toString("base64url");
    if (!id.startsWith("-")) return id;
  }
}

/** What a write does, for the refusal of one whose credential ended: a bulk change is many updates or deletes in one. */
type WriteKind = "create" | "update" | "delete" | "bulk";

/**
 * Runs `run` as `who`'s write to `resource` in one immediate transaction (a write inside it, as each of a bulk change's
 * records, is a savepoint of it: all land or none does).
 */
export function writeTransaction<R>(db: DB, resource: string, who: Writer, what: WriteKind, run: () => R): R {
  return immediately(db, () => {
    // First in each write's transaction: ERR_AGENT_CREDENTIAL_ENDED when `who`'s session or token no longer acts for
    // its owner, so a write authenticated before a change of address or a deletion commits nothing (lib/account
    // README, "Writes in flight").
    if (who.stillHeld?.() === false) throw credentialEnded(`${what} ${resource}`);
    return run();
  });
}

/** The record an update may be applied to and its current version, or the outcome that refuses it. */
type Admitted = { kind: "admitted"; current: StoredRecord; head: number } | Exclude<UpdateOutcome, { kind: "ok" | "conflict" }>;

/**
 * What both stores share: the table, the record's stream, a write in one transaction, and
 * the reads and the delete, which differ only in what a record's version is.
 */
function storeBase(db: DB, spec: ResourceSpec, events: EventStore, version: (record: StoredRecord) => number) {
  const table = new RecordTable(db, spec);
  const stream = (id: string): string => `${spec.Name}:${id}`;
  // SPEC §6.2: the change is recorded with its actor, atomically with it (lib/events README "A write and its event").
  const append = (who: Writer, id: string, change: string, data: Record<string, unknown> = {}, expected = events.version(stream(id))) =>
    events.append({
      Stream: stream(id),
      Expected: expected,
      Type: `${spec.Name}.${change}`,
      Data: { ...data, ...approvalData(who.approval) },
      Actor: who.actor,
      Subject: personOf(who),
    });
  const write = <R>(who: Writer, what: WriteKind, run: () => R): R => writeTransaction(db, spec.Name, who, what, run);
  const shared: Pick<RecordStore, "list" | "get" | "delete"> = {
    list: (owner, query) => table.list(owner, { ...LIST_DEFAULTS, ...query }),
    get(owner, id) {
      const record = table.get(owner, id);
      return record === undefined ? undefined : { record, version: version(record) };
    },
    delete: (who, id) =>
      write(who, "delete", () => {
        if (!table.delete(who.owner, id)) return false;
        append(who, id, "deleted");
        return true;
      }),
  };
  const check =
    (admit: (owner: string, id: string, version: number) => Admitted): RecordStore["check"] =>
    (owner, id, version) => {
      const admitted = admit(owner, id, version);
      return admitted.kind === "admitted" ? { kind: "ok", version: admitted.head } : admitted;
    };
  return { table, stream, append, write, shared, check };
}

/**
 * Returns the Exclusive store of `spec` over its table. Each change appends `<resource>.created` (its values),
 * `.updated` (the names of the fields changed, their values before and after) or `.deleted` to the record's stream
 * `<resource>:<id>` with the writer's actor, in the change's transaction: both land or neither does. An Exclusive record
 * is not bounded by `MAX_EVENT_DATA`: values that do not fit one event are left out of it (changes.ts `withValues`).
 * `rules` is asked in that transaction of the record as it would be stored (an update's fields not given as stored).
 */
export function exclusiveStore(
  db: DB,
  spec: ResourceSpec,
  events: EventStore,
  clock: Clock = systemClock,
  rules: RulesCheck = noRules,
): RecordStore {
  const { table, append, write, shared, check } = storeBase(db, spec, events, (record) => record.updated_at);
  const admit = (owner: string, id: string, version: number): Admitted => {
    const current = table.get(owner, id);
    if (current === undefined) return { kind: "missing" };
    // Never a lost update: the write lands only on the version the form was rendered from.
    if (current.updated_at !== version) return { kind: "stale", current, version: current.updated_at };
    return { kind: "admitted", current, head: version };
  };
  return {
    ...shared,
    create: (who, values) =>
      write(who, "create", () => {
        const now = clock.now().getTime();
        const id = newID();
        rules(who.owner, values);
        table.insert(who.owner, { id, created_at: now, updated_at: now, values }, personOf(who));
        append(who, id, "created", withValues({}, { values }));
        return { id, version: now };
      }),
    update: (who, id, version, mine) =>
      write(who, "update", (): UpdateOutcome => {
        const admitted = admit(who.owner, id, version);
        if (admitted.kind !== "admitted") return admitted;
        const current = admitted.current.values;
        // The fields not given keep their stored values, and the rules weigh the record as it would be.
        rules(who.owner, { ...current, ...mine });
        const next = table.update(who.owner, id, version, { ...current, ...mine }, clock.now().getTime());
        if (next === undefined) return { kind: "missing" };
        const fields = Object.keys(mine).filter((f) => mine[f] !== (current[f] ?? null));
        const values = (from: RecordValues) => Object.fromEntries(fields.map((f) => [f, from[f] ?? null]));
        append(who, id, "updated", withValues({ fields }, { before: values(current), after: values(mine) }));
        return { kind: "ok", version: next };
      }),
    check: check(admit),
  };
}

/** Merges each field of `mine` with `theirs`, both edited from `base` (merge.ts): the values to store, those changed, those in conflict. */
function mergeFields(kind: (name: string) => string, base: RecordValues, mine: RecordValues, theirs: RecordValues) {
  const merged: RecordValues = { ...theirs };
  const changes: RecordValues = {};
  const conflicts = new Map<string, FieldConflict>();
  for (const [name, value] of Object.entries(mine)) {
    const result = mergeField(kind(name), base[name] ?? null, value, theirs[name] ?? null);
    if (!result.ok) conflicts.set(name, { mine: value, theirs: theirs[name] ?? null });
    else if (result.value !== (theirs[name] ?? null)) merged[name] = changes[name] = result.value;
  }
  return { merged, changes, conflicts };
}

/**
 * Returns the Mergeable store of `spec`: event streams in `events`, projected into its table. An `.updated` event
 * carries the values it replaced (`before`), so an update reads at most `MERGE_MAX_BEHIND` events, however long the
 * stream; a conflict changes nothing but is itself appended with the submitted values, so nothing typed is lost.
 * `rules` is asked in the write's transaction of the record as it would be stored (an update's, as merged).
 */
export function mergeableStore(
  db: DB,
  spec: ResourceSpec,
  events: EventStore,
  clock: Clock = systemClock,
  rules: RulesCheck = noRules,
): RecordStore {
  const common = storeBase(db, spec, events, (record) => events.version(common.stream(record.id)));
  const { table, stream, append, write, shared, check } = common;
  const lineMerges = new MemoryLog();
  const kinds = new Map(spec.Form.Fields.map((f) => [f.Name, f.Kind as string]));
  const kind = (name: string): string => kinds.get(name) ?? "text";

  // The record's values at `base`: the current values with every `.updated` event after it undone
  // (each carries the values it replaced), so only the events since the base are read, never the whole stream.
  const valuesAt = (id: string, base: number, head: number, current: RecordValues): RecordValues => {
    const values: RecordValues = { ...current };
    const undone = new Set<string>();
    for (const event of base === head ? [] : events.read(stream(id), base + 1, head - base)) {
      if (event.Type !== `${spec.Name}.updated`) continue;
      for (const [name, value] of Object.entries(event.Data["before"] as RecordValues)) {
        if (!undone.has(name)) values[name] = value;
        undone.add(name);
      }
    }
    return values;
  };

  const admit = (owner: string, id: string, version: number): Admitted => {
    const current = table.get(owner, id);
    if (current === undefined) return { kind: "missing" };
    const head = events.version(stream(id));
    if (!Number.isSafeInteger(version) || version < 1 || version > head) return { kind: "bad_version" };
    // A base too far behind is refused as stale (the person's text shown back), so a merge reads a bounded stretch.
    if (head - version > MERGE_MAX_BEHIND) return { kind: "stale", current, version: head };
    return { kind: "admitted", current, head };
  };

  return {
    ...shared,
    create: (who, values) =>
      write(who, "create", () => {
        const id = newID();
        rules(who.owner, values);
        const event = append(who, id, "created", { values }, 0);
        table.insert(who.owner, { id, created_at: event.At.getTime(), updated_at: event.At.getTime(), values }, personOf(who));
        return { id, version: event.Seq };
      }),
    update: (who, id, version, mine) =>
      write(who, "update", (): UpdateOutcome => {
        const admitted = admit(who.owner, id, version);
        if (admitted.kind !== "admitted") return admitted;
        const { current, head } = admitted;
        const theirs = current.values;
        const base = valuesAt(id, version, head, theirs);
        // A line merge is synchronous work: a person past MERGE_RATE waits, so no one person holds the event loop.
        if (Object.entries(mine).some(([name, value]) => needsLineMerge(kind(name), base[name] ?? null, value, theirs[name] ?? null))) {
          const retryAfter = takeLimit(lineMerges, who.owner, MERGE_RATE, clock.now().getTime());
          if (retryAfter > 0) return { kind: "busy", retryAfter };
        }
        const { merged, changes, conflicts } = mergeFields(kind, base, mine, theirs);
        if (conflicts.size > 0) {
          // Both values are kept, each once: the stored one in the stream already, the submitted one in this event.
          const event = append(who, id, "conflict", { base: version, values: mine, conflicts: [...conflicts.keys()] }, head);
          return { kind: "conflict", current, version: event.Seq, merged, conflicts };
        }
        if (Object.keys(changes).length === 0) return { kind: "ok", version: head };
        // On the merged record: a field another edit changed meanwhile is weighed as it now is.
        rules(who.owner, merged);
        const before = Object.fromEntries(Object.keys(changes).map((f) => [f, theirs[f] ?? null]));
        const event = append(who, id, "updated", { base: version, values: changes, before }, head);
        table.update(who.owner, id, undefined, merged, event.At.getTime());
        return { kind: "ok", version: event.Seq };
      }),
    check: check(admit),
  };
}
