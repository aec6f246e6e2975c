/*
 * `MountedResource.Store`: the resource's store as application code reads and writes it (a job, a script), in the
 * values its tools give (values.ts `valueOut`: an amount as a decimal string, a yes/no as a boolean), converted at this
 * one boundary; the routes and tools inside the module keep the stored values (README "Values by kind").
 */
import type { RecordStore, UpdateOutcome } from "./store.ts";
import type { ResourceSpec } from "./spec.ts";
import type { StoredRecord } from "./table.ts";
import { convertValues, valueIn, valueOut, type RecordValues } from "./values.ts";

/** `outcome` with its records' values as the tools give them (`valueOut`). */
export function shownOutcome(spec: ResourceSpec, o: UpdateOutcome): UpdateOutcome {
  if (o.kind === "stale") return { ...o, current: shownRecord(spec, o.current) };
  if (o.kind !== "conflict") return o;
  const conflicts = new Map(
    [...o.conflicts].map(([name, c]) => {
      const field = spec.Form.Fields.find((f) => f.Name === name);
      return [name, field === undefined ? c : { mine: valueOut(field, c.mine), theirs: valueOut(field, c.theirs) }];
    }),
  );
  return { ...o, current: shownRecord(spec, o.current), merged: convertValues(spec, o.merged, valueOut), conflicts };
}

function shownRecord(spec: ResourceSpec, r: StoredRecord): StoredRecord {
  return { ...r, values: convertValues(spec, r.values, valueOut) };
}

/** Returns `store` giving and taking `valueOut`'s values; a value it cannot take throws `ERR_MANIFEST_INVALID_FIELD`. */
export function appStore(spec: ResourceSpec, store: RecordStore): RecordStore {
  const into = (values: RecordValues): RecordValues => convertValues(spec, values, (f, v) => valueIn(spec.Name, f, v));
  const record = (r: StoredRecord): StoredRecord => shownRecord(spec, r);
  const outcome = (o: UpdateOutcome): UpdateOutcome => shownOutcome(spec, o);
  return {
    list(owner, query) {
      const page = store.list(owner, query);
      return { ...page, records: page.records.map(record) };
    },
    get(owner, id) {
      const found = store.get(owner, id);
      return found === undefined ? undefined : { ...found, record: record(found.record) };
    },
    create: (who, values) => store.create(who, into(values)),
    update: (who, id, version, mine) => outcome(store.update(who, id, version, into(mine))),
    check: (owner, id, version) => outcome(store.check(owner, id, version)),
    delete: (who, id) => store.delete(who, id),
  };
}
