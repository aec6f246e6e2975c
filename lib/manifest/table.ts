/*
 * SQL over a resource's table (the Exclusive store, or a Mergeable resource's projection). Owner scoping lives here
 * (scope.ts says what it is): another owner's record is simply not found, exactly like an unknown id. Column names come
 * from the validated manifest, values are always bound. Lists use keyset pagination on (sort value, id), with no OFFSET
 * scan; every write also writes the record's row of the search index in the caller's transaction (README "Search and
 * export").
 */
import { requireTables, type DB, type Statement } from "../db/index.ts";
import type { FieldValue } from "./merge.ts";
import { isSearched } from "./schema.ts";
import { ownerTag, searchRow } from "./search.ts";
import { limitSQL, ownerClauses, ownerOf, preparer, scopeColumn, where } from "./scope.ts";
import type { ResourceSpec } from "./spec.ts";
import type { RecordValues } from "./values.ts";
import { nullSort, sortExpression } from "./schema.ts";

/** A stored record. */
export interface StoredRecord {
  id: string;
  created_at: number;
  updated_at: number;
  values: RecordValues;
}

/** One list filter, already parsed: text contained, a range (both ends included; an end left out is open), or one value. */
export type ListFilter =
  | { field: string; contains: string }
  | { field: string; min?: number | string | undefined; max?: number | string | undefined }
  | { field: string; equals: string | number };

/** What a list page asks for. */
export interface ListQuery {
  filters: ListFilter[];
  /** Words every record listed holds, in any searched field (case and accents aside); empty: no search. */
  search: string[];
  /** A list column or fixed column name. */
  sort: string;
  desc: boolean;
  /** The keyset of the last row of the previous page. */
  after: [FieldValue, string] | undefined;
  limit: number;
}

/** A row as SQLite returns it. */
type Row = Record<string, unknown>;

/**
 * How many pages' worth of rows a search reads in the list's order before it asks the index for the owner's matches
 * instead (#search): a word held by at least one row in SEARCH_WALK fills its page that way.
 */
const SEARCH_WALK = 4;

/** Records per list page. */
export const LIST_PAGE_SIZE: number = 20;

/** The SQL of one resource's table, scoped to an owner (a person or a team) when the resource is scoped. */
export class RecordTable {
  readonly #spec: ResourceSpec;
  readonly #fields: string[];
  readonly #searched: string[];
  readonly #index: string;
  // A list's statements: filters present × sort column × direction × first page or not.
  readonly #prepare: (sql: string) => Statement;

  constructor(db: DB, spec: ResourceSpec) {
    requireTables(db, `resource ${spec.Name}`, `resourceSchema(${spec.Name})`, [spec.Name]);
    this.#prepare = preparer(db);
    this.#spec = spec;
    this.#fields = spec.Form.Fields.map((f) => f.Name);
    this.#searched = spec.Form.Fields.filter(isSearched).map((f) => f.Name);
    this.#index = `"${spec.Name}_search"`;
  }

  // Replaces the search row of `owner`'s record at `rowid` (search.ts).
  #reindex(owner: string, rowid: number | bigint, values: RecordValues): void {
    this.#prepare(`DELETE FROM ${this.#index} WHERE rowid = ?`).run(rowid);
    const texts = this.#searched.map((f) => values[f] ?? null);
    const body = searchRow(ownerOf(this.#spec, owner), texts);
    if (body !== undefined) this.#prepare(`INSERT INTO ${this.#index} (rowid, body) VALUES (?, ?)`).run(rowid, body);
  }

  #toRecord(row: Row): StoredRecord {
    const values: RecordValues = {};
    for (const name of this.#fields) values[name] = (row[name] ?? null) as FieldValue;
    return { id: String(row["id"]), created_at: Number(row["created_at"]), updated_at: Number(row["updated_at"]), values };
  }

  /** Inserts a record for `owner` (a team: by `author`). */
  insert(owner: string, record: StoredRecord, author: string = owner): void {
    const scope = { owner: { owner }, team: { team: owner, author }, none: {} }[scopeColumn(this.#spec) ?? "none"];
    const names = ["id", ...Object.keys(scope), "created_at", "updated_at", ...this.#fields];
    const params = [
      record.id,
      ...Object.values(scope),
      record.created_at,
      record.updated_at,
      ...this.#fields.map((f) => record.values[f] ?? null),
    ];
    const { lastInsertRowid } = this.#prepare(
      `INSERT INTO "${this.#spec.Name}" (${names.map((n) => `"${n}"`).join(", ")}) VALUES (${names.map(() => "?").join(", ")})`,
    ).run(...params);
    this.#reindex(owner, lastInsertRowid, record.values);
  }

  /** Returns `owner`'s record `id`, or undefined (unknown and foreign ids alike). */
  get(owner: string, id: string): StoredRecord | undefined {
    const { clauses, params } = ownerClauses(this.#spec, owner);
    const row = this.#prepare(`SELECT * FROM "${this.#spec.Name}"${where(["id = ?", ...clauses])}`).get(id, ...params);
    return row === undefined ? undefined : this.#toRecord(row as Record<string, unknown>);
  }

  /**
   * Writes `values` over `owner`'s record `id` when its `updated_at` is still `version` (undefined: unconditionally);
   * the new `updated_at` is max(now, version + 1). Returns the new version, or undefined when nothing matched (unknown,
   * foreign or stale).
   */
  update(owner: string, id: string, version: number | undefined, values: RecordValues, now: number): number | undefined {
    const { clauses, params } = ownerClauses(this.#spec, owner);
    const sets = this.#fields.map((f) => `"${f}" = ?`).join(", ");
    const guard = version === undefined ? [] : ["updated_at = ?"];
    const row = this.#prepare(
      `UPDATE "${this.#spec.Name}" SET ${sets}, updated_at = max(?, updated_at + 1)${where(["id = ?", ...clauses, ...guard])} RETURNING rowid, updated_at`,
    ).get(...this.#fields.map((f) => values[f] ?? null), now, id, ...params, ...(version === undefined ? [] : [version])) as
      { rowid: number; updated_at: number } | undefined;
    if (row !== undefined) this.#reindex(owner, row.rowid, values);
    return row?.updated_at;
  }

  /** Deletes `owner`'s record `id`; reports whether it existed. */
  delete(owner: string, id: string): boolean {
    const { clauses, params } = ownerClauses(this.#spec, owner);
    return this.#prepare(`DELETE FROM "${this.#spec.Name}"${where(["id = ?", ...clauses])}`).run(id, ...params).changes === 1;
  }

  /** Returns one page of `owner`'s records and the keyset of the next page, if any. */
  list(owner: string, query: ListQuery): { records: StoredRecord[]; next: [FieldValue, string] | undefined } {
    // Written into the SQL (scope.ts `limitSQL`): checked first.
    if (!Number.isSafeInteger(query.limit) || query.limit < 0)
      throw new RangeError(`list ${this.#spec.Name}: limit must be a whole number, 0 or more, got ${query.limit}`);
    const { clauses, params } = ownerClauses(this.#spec, owner);
    for (const filter of query.filters) {
      const c = `"${filter.field}"`;
      const conditions: [string, unknown][] =
        "contains" in filter
          ? [[`instr(lower(${c}), lower(?)) > 0`, filter.contains]]
          : "equals" in filter
            ? [[`${c} = ?`, filter.equals]]
            : [
                [`${c} >= ?`, filter.min],
                [`${c} <= ?`, filter.max],
              ];
      for (const [clause, param] of conditions.filter(([, param]) => param !== undefined)) {
        clauses.push(clause);
        params.push(param);
      }
    }
    const words: string[] = [];
    for (const word of query.search) {
      // The trigram index answers words of 3 characters or more (#search); a shorter one is looked for in the text of each of
      // the owner's records in the list's order, by rowid (README "Search"): never in every person's text (issue 27).
      if ([...word].length >= 3) {
        words.push(`"${word.replaceAll('"', '""')}"`);
      } else {
        clauses.push(`EXISTS (SELECT 1 FROM ${this.#index} s WHERE s.rowid = "${this.#spec.Name}".rowid AND s.body LIKE ? ESCAPE '\\')`);
        params.push(`%${word.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
      }
    }
    const sortExpr = sortExpression(this.#spec, query.sort);
    const dir = query.desc ? "DESC" : "ASC";
    // Sorted by id, the keyset is the id alone: a repeated ORDER BY term would make SQLite sort outside the index.
    const byID = query.sort === "id";
    if (query.after !== undefined) {
      const op = query.desc ? "<" : ">";
      // Not the row value `(expr, id) < (?, ?)`: SQLite bounds an expression index (ifnull(...)) by a plain comparison only,
      // and without the bound page 500 read every row before it (issue 27; the query-plan test asserts the bound).
      clauses.push(byID ? `id ${op} ?` : `${sortExpr} ${op}= ? AND (${sortExpr} ${op} ? OR id ${op} ?)`);
      params.push(...(byID ? [query.after[1]] : [query.after[0], query.after[0], query.after[1]]));
    }
    const order = `ORDER BY ${byID ? "" : `${sortExpr} ${dir}, `}id ${dir}`;
    const rows =
      words.length === 0
        ? (this.#prepare(`SELECT * FROM "${this.#spec.Name}"${where(clauses)} ${order} ${limitSQL(query.limit + 1)}`).all(
            ...params,
          ) as Row[])
        : this.#search(owner, clauses, params, order, words.join(" AND "), query.limit + 1);
    const records = rows.slice(0, query.limit).map((r) => this.#toRecord(r));
    const last = records[records.length - 1];
    const next: [FieldValue, string] | undefined =
      rows.length > query.limit && last !== undefined ? [this.#sortValue(query.sort, last), last.id] : undefined;
    return { records, next };
  }

  /**
   * The first `want` rows, in `order`, of those `clauses` select whose search row matches `match`, read one of two ways
   * (README "Search"), so that neither reads every person's matches of a common word (issue 27):
   * - the rows in the list's order, each looked up in the index, while the page fills within SEARCH_WALK pages' rows: a
   *   word that many of the rows hold costs a page, whoever else holds it;
   * - else the index's matches among the owner's rows alone (`"<owner's tag>" AND <words>`, search.ts), then ordered: a word
   *   few of the rows hold costs its matches among them.
   */
  #search(owner: string, clauses: readonly string[], params: readonly unknown[], order: string, match: string, want: number): Row[] {
    const table = `"${this.#spec.Name}"`;
    const budget = want * SEARCH_WALK;
    const walked = this.#prepare(
      `SELECT * FROM (SELECT rowid AS latch_rowid, * FROM ${table}${where(clauses)} ${order} ${limitSQL(budget)}) AS r
WHERE EXISTS (SELECT 1 FROM ${this.#index} WHERE ${this.#index}.rowid = r.latch_rowid AND ${this.#index} MATCH ?) ${order} ${limitSQL(want)}`,
    ).all(...params, match) as Row[];
    if (walked.length === want) return walked;
    const read = this.#prepare(`SELECT count(*) FROM (SELECT 1 FROM ${table}${where(clauses)} ${limitSQL(budget)})`)
      .pluck()
      .get(...params);
    // Fewer rows than the walk could read: it read them all, and found every match.
    if (Number(read) < budget) return walked;
    const scoped = ownerOf(this.#spec, owner) === undefined ? match : `"${ownerTag(owner)}" AND ${match}`;
    const matches = `rowid IN (SELECT rowid FROM ${this.#index} WHERE ${this.#index} MATCH ?)`;
    return this.#prepare(`SELECT * FROM ${table}${where([...clauses, matches])} ${order} ${limitSQL(want)}`).all(
      ...params,
      scoped,
    ) as Row[];
  }

  #sortValue(column: string, record: StoredRecord): FieldValue {
    if (column === "id") return record.id;
    if (column === "created_at" || column === "updated_at") return record[column];
    return record.values[column] ?? nullSort(this.#spec, column) ?? null;
  }
}
