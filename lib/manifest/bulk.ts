/*
 * Bulk changes (README "Bulk changes"): up to BULK_MAX of an owner's records deleted, or one field set to one value on
 * each, from the list page (bulk-form.ts) or by one approved tool call (bulk-tool.ts). Read as the form reads one
 * record (`readBulk`), weighed before anything is written with every refusal named by record (`weighBulk`: another's or
 * an unknown id, a rule across fields, a record others refer to), then applied in ONE transaction (`bulkWriter`), each
 * record through the store's own update or delete, so each has its attributed event and its checks, and all land or none
 * does. Versions: the value is set on each record as it is when the change is applied (last writer), its event keeping
 * the value it replaced (the record's history shows before → after); the list is not asked to carry one per record.
 */
import { isAgentError, isCredentialEnded } from "../agent/index.ts";
import type { DB } from "../db/index.ts";
import { problemText, refusingWrite, type Label } from "./calls.ts";
import { Kind } from "./kinds.ts";
import type { FieldValue } from "./merge.ts";
import { recordName, type References } from "./references.ts";
import { ruleProblems } from "./rules.ts";
import type { Field, ResourceSpec } from "./spec.ts";
import { writeTransaction, type RecordStore, type Writer } from "./store.ts";
import type { StoredRecord } from "./table.ts";
import { parseField, type RecordValues } from "./values.ts";

/**
 * The most records one bulk change reaches: five list pages (LIST_PAGE_SIZE 20), so the one write transaction that
 * holds it, and the approval page that lists every record, stay short.
 */
export const BULK_MAX: number = 100;

/** The two bulk actions. */
export const BULK_ACTIONS = ["delete", "set"] as const;

/** A bulk change, read: the records it reaches, and what it does to each. */
export type BulkChange =
  | { readonly action: "delete"; readonly ids: readonly string[] }
  | { readonly action: "set"; readonly ids: readonly string[]; readonly field: Field; readonly value: FieldValue };

/** A record a bulk change reaches, as stored now. */
export interface BulkRecord {
  readonly record: StoredRecord;
  readonly name: string;
}

/** A bulk change refused, nothing of it stored: its status, and each reason (a record by name and id, with why). */
export class BulkRefused extends Error {
  readonly status: 400 | 404 | 409 | 422 | 429;
  readonly reasons: readonly string[];

  constructor(status: BulkRefused["status"], reasons: readonly string[]) {
    super(`bulk change refused (${status}): ${reasons.join("; ")}`);
    this.status = status;
    this.reasons = reasons;
  }
}

/** A bulk request as given, by a form or a tool: texts, before they are read. */
export interface BulkInput {
  action: string;
  ids: readonly string[];
  field: string;
  value: string;
}

/**
 * Reads `input` as the form reads one record in `locale`: "delete" or "set", 1 to BULK_MAX distinct ids, and for "set" a
 * field of the form (not a File, which is uploaded) with its value read as the form reads it. Throws `BulkRefused`: 400
 * naming what is wrong, 422 for the value, worded by `t`.
 */
export function readBulk(spec: ResourceSpec, input: BulkInput, locale: string, t: Label): BulkChange {
  const ids = input.ids.map((id) => id.trim()).filter((id) => id !== "");
  if (ids.length === 0) throw new BulkRefused(400, ["ids: choose at least one record"]);
  // A bound on the work of one request and the length of its transaction (BULK_MAX).
  if (ids.length > BULK_MAX) throw new BulkRefused(400, [`ids: at most ${BULK_MAX} records at once, ${ids.length} given`]);
  if (new Set(ids).size !== ids.length) throw new BulkRefused(400, ["ids: a record is named twice"]);
  if (input.action === "delete") return { action: "delete", ids };
  if (input.action !== "set") throw new BulkRefused(400, ['action: "delete" or "set"']);
  const field = bulkFields(spec).find((f) => f.Name === input.field);
  if (field === undefined)
    throw new BulkRefused(400, [
      `field: not one of ${bulkFields(spec)
        .map((f) => f.Name)
        .join(", ")}`,
    ]);
  const parsed = parseField(field, input.value, locale);
  if ("key" in parsed) throw new BulkRefused(422, [problemText(t, field.Name, parsed)]);
  return { action: "set", ids, field, value: parsed.value };
}

/** The fields a bulk change may set: the form's, but a File's (a file is uploaded to one record). */
export function bulkFields(spec: ResourceSpec): Field[] {
  return spec.Form.Fields.filter((f) => f.Kind !== Kind.File);
}

/** What weighing a bulk change reads: the resource, its store, its references. */
export interface BulkParts {
  readonly spec: ResourceSpec;
  readonly store: Pick<RecordStore, "get">;
  readonly refs: Pick<References, "problems" | "reader" | "refusal">;
}

/**
 * The records `change` reaches of `owner`'s, as stored now, after the checks its write would make of each, changing
 * nothing. Throws `BulkRefused` naming every record at fault: 404 for ids not `owner`'s (SPEC §7: another's and an
 * unknown id alike), 422 for a reference the value names that is not the owner's, or for each record whose rules across
 * fields the value would break (with the fields), 409 for each record others refer to (OnDelete "refuse").
 */
export function weighBulk({ spec, store, refs }: BulkParts, owner: string, change: BulkChange, t: Label): BulkRecord[] {
  const found = change.ids.map((id) => ({ id, stored: store.get(owner, id)?.record }));
  const missing = found.filter((f) => f.stored === undefined).map((f) => f.id);
  // OWASP ASVS 5.0 §8.2.2: every record is the owner's, or nothing is changed.
  if (missing.length > 0) throw new BulkRefused(404, [`no such record: ${missing.join(", ")}`]);
  const records = found.map(({ id, stored }) => ({ record: stored as StoredRecord, name: recordName(spec, id, stored?.values ?? {}) }));
  const named = (r: BulkRecord): string => `"${r.name}" (${r.record.id})`;
  if (change.action === "delete") {
    const refused = records.flatMap((r) => {
      const e = refs.refusal(r.record.id);
      return e === undefined ? [] : [`${named(r)}: ${e.message}`];
    });
    if (refused.length > 0) throw new BulkRefused(409, refused);
    return records;
  }
  const values: RecordValues = { [change.field.Name]: change.value };
  const reference = refs.problems(owner, values);
  if (reference.size > 0)
    throw new BulkRefused(
      422,
      [...reference].map(([field, p]) => problemText(t, field, p)),
    );
  // README "Rules across fields": each record weighed as it would be stored, every record at fault named with its fields.
  const broken = records.flatMap((r) => {
    const whole = { ...r.record.values, ...values };
    const problems = ruleProblems(spec, whole, refs.reader(owner, whole));
    return problems.size === 0 ? [] : [`${named(r)}: ${[...problems].map(([field, p]) => problemText(t, field, p)).join(" ")}`];
  });
  if (broken.length > 0) throw new BulkRefused(422, broken);
  return records;
}

/** A record a bulk change changed: its id, what happened to it, and its version now (0 once deleted). */
export interface BulkLanded {
  readonly id: string;
  readonly change: "updated" | "deleted";
  readonly version: number;
}

/** Applies a weighed bulk change in one transaction (`bulkWriter`), its refusals worded by `t`. */
export type BulkApply = (who: Writer, change: BulkChange, t: Label) => BulkLanded[];

/**
 * Returns the writer of `spec`'s bulk changes over `store` (the references' guard of the store, below the live feed and
 * the attachments): each record updated or deleted through `store` inside one transaction, so every record's checks
 * and attributed event are its single write's, and a refusal of any record (a race since `weighBulk`) rolls back all of
 * them and throws `BulkRefused` naming it, with why as a single write's call says it (calls.ts `refusingWrite`).
 * `landed` hears of each record only after the transaction committed.
 */
export function bulkWriter(db: DB, spec: ResourceSpec, store: RecordStore, landed: (who: Writer, change: BulkLanded) => void): BulkApply {
  const one = (who: Writer, change: BulkChange, id: string): BulkLanded => {
    if (change.action === "delete") {
      if (!store.delete(who, id)) throw new BulkRefused(404, [`no such record: ${id}`]);
      return { id, change: "deleted", version: 0 };
    }
    const found = store.get(who.owner, id);
    if (found === undefined) throw new BulkRefused(404, [`no such record: ${id}`]);
    // Last writer: the record as it is now is the base, so a Mergeable record merges nothing and an Exclusive one is never stale.
    const outcome = store.update(who, id, found.version, { [change.field.Name]: change.value });
    if (outcome.kind === "ok") return { id, change: "updated", version: outcome.version };
    throw new BulkRefused(outcome.kind === "missing" ? 404 : outcome.kind === "busy" ? 429 : 409, [`${id}: ${outcome.kind}`]);
  };
  return (who, change, t) => {
    const done = writeTransaction(db, spec.Name, who, "bulk", () =>
      change.ids.map((id) => {
        try {
          return refusingWrite(spec, t, () => one(who, change, id));
        } catch (e) {
          // refusingWrite's refusals (a broken rule or reference 422, a record referred to 409), by the record's id.
          if (isAgentError(e) && !isCredentialEnded(e) && (e.status === 409 || e.status === 422))
            throw new BulkRefused(e.status, [`${id}: ${e.message}`]);
          throw e;
        }
      }),
    );
    for (const change of done) landed(who, change);
    return done;
  };
}
