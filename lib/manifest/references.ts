/*
 * References (issue 25; README "References"): a Reference field holds the id of a record of the resource its
 * `References` names (the target). Every create and update checks each reference it writes with one `SELECT` on the
 * target in the write's own transaction, whatever path it came by; a delete refuses or clears the references to its
 * record (`OnDelete`). The delete's statements cross owners on purpose: a reference to an unscoped record may be
 * anyone's. A resource learns of the resources mounted before it on the same database from a registry per `DB` handle.
 */
import type { DB, Statement } from "../db/index.ts";
import type { EventStore } from "../events/index.ts";
import { systemClock, type Clock } from "../http/index.ts";
import { Kind, StoreKind } from "./kinds.ts";
import { limitSQL, ownerClauses, preparer, routeIn, scopeColumn, where } from "./scope.ts";
import type { Field, ResourceSpec } from "./spec.ts";
import { personOf, type RecordStore, type Writer } from "./store.ts";
import { RecordTable, type StoredRecord } from "./table.ts";
import { validateReferences } from "./validate.ts";
import { convertValues, valueOut, type FieldProblem, type RecordValues } from "./values.ts";
import { immediately } from "../internal/index.ts";

/** The most records a Reference field's select offers: the target's newest (the current one is added when older). */
export const REFERENCE_OPTIONS_LIMIT: number = 200;

/** One record a Reference field may point to, as its select shows it. */
export interface ReferenceOption {
  id: string;
  /** The target record's name (`titleField`), else its id. */
  label: string;
}

/** Returns the field that names a record of `spec` (README "A record's name"): its `Title`, else its first Text field. */
export function titleField(spec: ResourceSpec): string | undefined {
  return spec.Title ?? spec.Form.Fields.find((f) => f.Kind === Kind.Text)?.Name;
}

/** Returns the name of record `id` of `spec` holding `values` (README "A record's name"): its `titleField`'s text, else its id. */
export function recordName(spec: ResourceSpec, id: string, values: RecordValues): string {
  const title = titleField(spec);
  const name = title === undefined ? "" : String(values[title] ?? "");
  return name === "" ? id : name;
}

/** A write named a record its Reference field may not point to: unknown, or another person's. Nothing was stored. */
export class ReferenceRefused extends Error {
  /** The problem of each field at fault. */
  readonly problems: ReadonlyMap<string, FieldProblem>;

  constructor(problems: ReadonlyMap<string, FieldProblem>) {
    super(`reference refused: ${[...problems.keys()].join(", ")}`);
    this.problems = problems;
  }
}

/** A delete was refused: records of `resource` refer to the record through `field` (OnDelete "refuse"). Nothing was deleted. */
export class RecordReferenced extends Error {
  /** The referring resource. */
  readonly resource: ResourceSpec;
  /** Its Reference field. */
  readonly field: string;

  constructor(resource: ResourceSpec, field: string) {
    super(`${resource.Name} refer to this record (field ${field}); change or delete them first`);
    this.resource = resource;
    this.field = field;
  }
}

interface Mounted {
  spec: ResourceSpec;
  events: EventStore;
  clock: Clock;
}

// The resources mounted on each database, by name: a reference's target, and a target's referrers.
const MOUNTED = new WeakMap<DB, Map<string, Mounted>>();

const MISSING: FieldProblem = { key: "resource.err.reference_missing", args: {} };

/** The Reference fields of one resource and the resources referring to it, over one database. */
export class References {
  readonly #db: DB;
  readonly #spec: ResourceSpec;
  readonly #mounted: Map<string, Mounted>;
  readonly #prepare: (sql: string) => Statement;
  readonly #tables = new Map<string, RecordTable>();

  /**
   * Registers `spec` on `db` (validated), after checking each of its Reference fields against the resources mounted
   * before it (`validateReferences`: `ERR_MANIFEST_INVALID_FIELD` naming the field).
   */
  constructor(db: DB, spec: ResourceSpec, events: EventStore, clock: Clock = systemClock) {
    const mounted = MOUNTED.get(db) ?? new Map<string, Mounted>();
    MOUNTED.set(db, mounted);
    validateReferences(spec, (name) => mounted.get(name)?.spec);
    this.#db = db;
    this.#prepare = preparer(db);
    this.#spec = spec;
    this.#mounted = mounted;
    mounted.set(spec.Name, { spec, events, clock });
  }

  #target(field: Field): ResourceSpec {
    const target = this.#mounted.get(field.References ?? "")?.spec;
    if (target === undefined) throw new Error(`resource ${this.#spec.Name} field ${field.Name}: its target is not mounted`);
    return target;
  }

  // The records of `field`'s target that `owner` may point to (those of `ids` alone, when given: one statement however
  // many, a JSON array bound to one parameter), each labelled by its name (`titleField`), else its id; `tail` orders and
  // bounds them.
  #select(owner: string, field: Field, ids: readonly string[] | undefined, tail = "", tailParams: unknown[] = []): ReferenceOption[] {
    const target = this.#target(field);
    const label = titleField(target);
    const scope = ownerClauses(target, owner);
    const byID = ids === undefined ? [] : ["id IN (SELECT value FROM json_each(?))"];
    const sql = `SELECT id, ${label === undefined ? "id" : `"${label}"`} AS label FROM "${target.Name}"${where([...byID, ...scope.clauses])}${tail}`;
    const params = [...(ids === undefined ? [] : [JSON.stringify(ids)]), ...scope.params, ...tailParams];
    const rows = this.#prepare(sql).all(...params) as ReferenceOption[];
    return rows.map((r) => ({ id: r.id, label: r.label === "" ? r.id : r.label }));
  }

  /** Returns the record `id` of `field`'s target that `owner` may point to, with its label, or undefined (unknown and foreign alike). */
  find(owner: string, field: Field, id: string): ReferenceOption | undefined {
    return this.#select(owner, field, [id])[0];
  }

  /**
   * Returns the names (README "A record's name") of the records among `ids` of `field`'s target that `owner` may read,
   * by id, in one query: an id unknown, deleted, or of another person's or team's record has none, as `find` finds none.
   */
  names(owner: string, field: Field, ids: Iterable<string>): Map<string, string> {
    const wanted = [...new Set(ids)];
    if (wanted.length === 0) return new Map();
    return new Map(this.#select(owner, field, wanted).map((r) => [r.id, r.label]));
  }

  /**
   * Returns the records of `field`'s target that `owner` may point to whose name (its `titleField`) is among `names`,
   * their ids by name, in one query (an import's references by name, README "Import"): two ids for a name is ambiguous.
   */
  named(owner: string, field: Field, names: Iterable<string>): Map<string, string[]> {
    const wanted = [...new Set(names)];
    const target = this.#target(field);
    const label = titleField(target);
    if (wanted.length === 0 || label === undefined) return new Map();
    const found = new Map<string, string[]>();
    const joined = ownerClauses(target, owner).clauses.length === 0 ? " WHERE" : " AND";
    const tail = `${joined} "${label}" IN (SELECT value FROM json_each(?))`;
    for (const r of this.#select(owner, field, undefined, tail, [JSON.stringify(wanted)]))
      found.set(r.label, [...(found.get(r.label) ?? []), r.id]);
    return found;
  }

  /**
   * Returns the names of the records `records` refer to, by Reference field (among `fields`, default all) then id: one
   * query per field (`names`), never one per record.
   */
  recordNames(
    owner: string,
    records: readonly Pick<StoredRecord, "values">[],
    fields: readonly Field[] = this.#fields(),
  ): Map<string, Map<string, string>> {
    const ids = (field: Field) => records.map((r) => r.values[field.Name]).filter((v): v is string => typeof v === "string");
    return new Map(fields.filter((f) => f.Kind === Kind.Reference).map((f) => [f.Name, this.names(owner, f, ids(f))]));
  }

  /**
   * Returns the links to the records `records` refer to (among `fields`), as a list's cells and a record's read view
   * show them: by name, to the record's page; undefined for a record `owner` may not read. One query per field.
   */
  links(
    owner: string,
    records: readonly Pick<StoredRecord, "values">[],
    fields?: readonly Field[],
  ): (field: Field, id: string) => { href: string; label: string } | undefined {
    const names = this.recordNames(owner, records, fields);
    return (field, id) => {
      const label = names.get(field.Name)?.get(id);
      return label === undefined ? undefined : { href: this.href(field, id, owner), label };
    };
  }

  /**
   * Returns the records a select of `field` offers `owner`: the target's newest `REFERENCE_OPTIONS_LIMIT`, and
   * `current` (the stored value) when it is older.
   */
  options(owner: string, field: Field, current: string): ReferenceOption[] {
    const options = this.#select(owner, field, undefined, ` ORDER BY created_at DESC, id DESC ${limitSQL(REFERENCE_OPTIONS_LIMIT)}`);
    const older = current === "" || options.some((o) => o.id === current) ? undefined : this.find(owner, field, current);
    return older === undefined ? options : [...options, older];
  }

  /** Returns the options of each Reference field of the form, `entered` holding the values shown. */
  formOptions(owner: string, entered: ReadonlyMap<string, string>): Map<string, ReferenceOption[]> {
    return new Map(this.#fields().map((f) => [f.Name, this.options(owner, f, entered.get(f.Name) ?? "")]));
  }

  /** Returns the field naming the records of `field`'s target (`titleField`), undefined when they are named by their ids. */
  titleOf(field: Field): Field | undefined {
    const target = this.#target(field);
    return target.Form.Fields.find((f) => f.Name === titleField(target));
  }

  /** Returns the route of the record `id` of `field`'s target, seen by `owner` (a team target's route holds the team). */
  href(field: Field, id: string, owner: string): string {
    return `${routeIn(this.#target(field), owner)}/${id}`;
  }

  /**
   * Returns what reads the record a Reference field of `values` names, as `owner` may (`find`'s scope), in `Store`'s
   * values (values.ts `valueOut`), or undefined: a rule's check (rules.ts), run in the write's transaction.
   */
  reader(owner: string, values: RecordValues): (field: string) => RecordValues | undefined {
    return (name) => {
      const field = this.#fields().find((f) => f.Name === name);
      const id = values[name];
      if (field === undefined || typeof id !== "string") return undefined;
      const target = this.#target(field);
      const table = this.#tables.get(target.Name) ?? new RecordTable(this.#db, target);
      this.#tables.set(target.Name, table);
      const record = table.get(owner, id);
      return record === undefined ? undefined : convertValues(target, record.values, valueOut);
    };
  }

  #fields(): Field[] {
    return this.#spec.Form.Fields.filter((f) => f.Kind === Kind.Reference);
  }

  /**
   * Returns the problem of each Reference field in `values` naming a record `owner` may not point to (unknown, or
   * another person's): the same problem for both, so a reply tells nothing of others' records.
   */
  problems(owner: string, values: RecordValues): Map<string, FieldProblem> {
    const problems = new Map<string, FieldProblem>();
    for (const field of this.#fields()) {
      const id = values[field.Name];
      if (typeof id === "string" && this.find(owner, field, id) === undefined) problems.set(field.Name, MISSING);
    }
    return problems;
  }

  // The Reference fields of every resource mounted on this database that point to this one.
  #referrers(): { mounted: Mounted; field: Field }[] {
    return [...this.#mounted.values()].flatMap((mounted) =>
      mounted.spec.Form.Fields.filter((f) => f.Kind === Kind.Reference && f.References === this.#spec.Name).map((field) => ({
        mounted,
        field,
      })),
    );
  }

  /**
   * Returns each resource and field whose records refer to record `id`, with how many do: every such record, whoever
   * owns it, as the delete that refuses or clears them reaches them all.
   */
  referrers(id: string): { resource: ResourceSpec; field: Field; count: number }[] {
    return this.#referrers().flatMap(({ mounted, field }) => {
      const row = this.#prepare(`SELECT count(*) AS n FROM "${mounted.spec.Name}" WHERE "${field.Name}" = ?`).get(id) as { n: number };
      return row.n === 0 ? [] : [{ resource: mounted.spec, field, count: row.n }];
    });
  }

  /** Returns the first referring resource and field that refuses the deletion of record `id` while a record refers to it. */
  refusal(id: string): RecordReferenced | undefined {
    for (const { mounted, field } of this.#referrers()) {
      if (field.OnDelete === "clear") continue;
      if (this.#prepare(`SELECT 1 FROM "${mounted.spec.Name}" WHERE "${field.Name}" = ? LIMIT 1`).get(id) !== undefined) {
        return new RecordReferenced(mounted.spec, field.Name);
      }
    }
    return undefined;
  }

  // Sets every field that refers to record `id` with OnDelete "clear" to NULL: an update of each record, with its event.
  #clear(who: Writer, id: string): void {
    for (const { mounted, field } of this.#referrers()) {
      if (field.OnDelete !== "clear") continue;
      const { spec, events, clock } = mounted;
      // The person each cleared record's event names: its owner, a team record's author, else whoever deleted.
      const owner = { owner: "owner", team: "author", none: "NULL" }[scopeColumn(spec) ?? "none"];
      const rows = this.#prepare(`SELECT id, ${owner} AS owner FROM "${spec.Name}" WHERE "${field.Name}" = ?`).all(id) as {
        id: string;
        owner: string | null;
      }[];
      for (const row of rows) {
        const stream = `${spec.Name}:${row.id}`;
        const head = events.version(stream);
        // As the referring resource's store writes an update: Exclusive names the fields changed and both values,
        // Mergeable the values and those they replaced.
        const change = { before: { [field.Name]: id } };
        const data =
          spec.Store === StoreKind.Mergeable
            ? { base: head, values: { [field.Name]: null }, ...change }
            : { fields: [field.Name], ...change, after: { [field.Name]: null } };
        const event = events.append({
          Stream: stream,
          Expected: head,
          Type: `${spec.Name}.updated`,
          Data: data,
          Actor: who.actor,
          Subject: row.owner ?? personOf(who),
        });
        const now = spec.Store === StoreKind.Mergeable ? event.At.getTime() : clock.now().getTime();
        this.#prepare(`UPDATE "${spec.Name}" SET "${field.Name}" = NULL, updated_at = max(?, updated_at + 1) WHERE id = ?`).run(
          now,
          row.id,
        );
      }
    }
  }

  /**
   * Returns `store` with its writes checked: a create or update naming a record its Reference field may not point to
   * throws `ReferenceRefused`, a delete of a record referred to by a "refuse" field throws `RecordReferenced`, and a
   * delete clears the "clear" fields referring to it; each in the write's transaction, so all of it lands or none does.
   */
  guard(store: RecordStore): RecordStore {
    const refuse = (owner: string, values: RecordValues): void => {
      const problems = this.problems(owner, values);
      if (problems.size > 0) throw new ReferenceRefused(problems);
    };
    // A resource without Reference fields has nothing to check before a create or an update: its store's own transaction
    // is the write's, not a savepoint inside one more (issue 44: each level is two more statements and a journal).
    const checked =
      this.#fields().length === 0
        ? { create: store.create, update: store.update }
        : {
            create: (who: Writer, values: RecordValues) =>
              immediately(this.#db, () => {
                refuse(who.owner, values);
                return store.create(who, values);
              }),
            update: (who: Writer, id: string, version: number, mine: RecordValues) =>
              immediately(this.#db, () => {
                refuse(who.owner, mine);
                return store.update(who, id, version, mine);
              }),
          };
    return {
      ...store,
      ...checked,
      delete: (who, id) =>
        immediately(this.#db, () => {
          if (store.get(who.owner, id) === undefined) return false;
          const refused = this.refusal(id);
          if (refused !== undefined) throw refused;
          this.#clear(who, id);
          return store.delete(who, id);
        }),
    };
  }
}
