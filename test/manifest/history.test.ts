/*
 * A resource's History (lib/manifest/history.ts): rename, retype and
 * remove on a database of 10,000 records, applied once at boot with the
 * values converted, the indexes and the search index as declared after;
 * a value that does not convert, or a conversion not defined, refuses the
 * boot and leaves the database as it was; a kind changed without an
 * entry names the entry to write.
 */
import assert from "node:assert/strict";
import { describe, test, type TestContext } from "node:test";
import { applySchema, type DB } from "../../lib/db/index.ts";
import { Kind, Resource, ScopeKind, StoreKind, resourceSchema } from "../../lib/manifest/index.ts";
import type { Change } from "../../lib/manifest/index.ts";
import { CONVERSIONS, HISTORY_STEP_PATTERN } from "../../lib/manifest/history.ts";
import { sortExpression } from "../../lib/manifest/schema.ts";
import type { Field } from "../../lib/manifest/spec.ts";
import { RecordTable, type ListQuery } from "../../lib/manifest/table.ts";
import { assertCode, open, tempFile } from "../_support/db.ts";

const RECORDS = 10_000;
const OWNER = "ada@example.com";

// Before: a title, a note, a whole-number budget, a legacy text and a date typed as text.
const before = new Resource({
  Name: "trips",
  Route: "/trips",
  Store: StoreKind.Exclusive,
  Scope: ScopeKind.UserScoped,
  List: { Columns: [{ Field: "title" }, { Field: "budget" }, { Field: "note" }, { Field: "legacy" }] },
  Form: {
    Fields: [
      { Name: "title", Label: "Title", Kind: Kind.Text },
      { Name: "note", Label: "Note", Kind: Kind.Text },
      { Name: "budget", Label: "Budget", Kind: Kind.Integer },
      { Name: "legacy", Label: "Legacy", Kind: Kind.Text },
      { Name: "starts", Label: "Starts", Kind: Kind.Text },
    ],
  },
});

const history: readonly Change[] = [
  { Step: "note-to-details", Rename: { From: "note", To: "details" } },
  { Step: "details-to-textarea", Retype: { Field: "details", From: Kind.Text, To: Kind.Textarea } },
  { Step: "budget-to-money", Retype: { Field: "budget", From: Kind.Integer, To: Kind.Money } },
  { Step: "starts-to-date", Retype: { Field: "starts", From: Kind.Text, To: Kind.Date } },
  { Step: "drop-legacy", Remove: { Field: "legacy" } },
];

// After: details (was note, now a Textarea), budget in euros, starts a Date, legacy gone.
const after = new Resource({
  ...before,
  List: { Columns: [{ Field: "title" }, { Field: "budget" }, { Field: "details" }] },
  Form: {
    Fields: [
      { Name: "title", Label: "Title", Kind: Kind.Text },
      { Name: "details", Label: "Details", Kind: Kind.Textarea },
      { Name: "budget", Label: "Budget", Kind: Kind.Money, Currency: "EUR" },
      { Name: "starts", Label: "Starts", Kind: Kind.Date },
    ],
  },
  History: history,
});

function query(over: Partial<ListQuery>): ListQuery {
  return { filters: [], search: [], sort: "created_at", desc: false, after: undefined, limit: 20, ...over };
}

function id(i: number): string {
  return `r${String(i).padStart(5, "0")}`;
}

// A database holding `before`'s table with RECORDS records (`starts` of record 0 set by `firstStarts`).
function seeded(t: TestContext, firstStarts = "2026-01-01"): { path: string; db: DB } {
  const path = tempFile(t);
  const db = open(t, path);
  applySchema(db, resourceSchema(before));
  const table = new RecordTable(db, before);
  db.transaction(() => {
    for (let i = 0; i < RECORDS; i++) {
      const values = {
        title: `trip ${i}`,
        note: i === 7 ? "bring the umbrella" : `note ${i}`,
        budget: i,
        legacy: i === 7 ? "obsolete zeppelin" : "",
        starts: i === 0 ? firstStarts : `2026-02-${String((i % 28) + 1).padStart(2, "0")}`,
      };
      table.insert(OWNER, { id: id(i), created_at: i, updated_at: i, values });
    }
  })();
  return { path, db };
}

function names(db: DB, type: string): string[] {
  return db.prepare("SELECT name FROM sqlite_schema WHERE type = ? AND tbl_name = 'trips' ORDER BY name").pluck().all(type) as string[];
}

function snapshot(db: DB): unknown {
  return {
    schema: db.prepare("SELECT type, name, sql FROM sqlite_schema ORDER BY name").all(),
    ledger: db.prepare("SELECT name FROM latch_schema ORDER BY name").pluck().all(),
    rows: db.prepare("SELECT count(*) AS n, sum(budget) AS budget, max(starts) AS starts FROM trips").get(),
  };
}

describe("a resource's History", () => {
  test("renames, retypes and removes on 10,000 records once, converting values; a restart does nothing", (t) => {
    const { path, db } = seeded(t);
    db.close();

    const booted = open(t, path);
    const applied = applySchema(booted, resourceSchema(after));
    assert.deepEqual(applied, ["resource/trips/history-note-to-details"]);
    const columns = booted.prepare("SELECT name, type FROM pragma_table_info('trips')").all();
    assert.deepEqual(columns, [
      { name: "id", type: "TEXT" },
      { name: "owner", type: "TEXT" },
      { name: "created_at", type: "INTEGER" },
      { name: "updated_at", type: "INTEGER" },
      { name: "title", type: "TEXT" },
      { name: "details", type: "TEXT" },
      { name: "budget", type: "INTEGER" },
      { name: "starts", type: "TEXT" },
    ]);
    const table = new RecordTable(booted, after);
    const seventh = table.get(OWNER, id(7));
    assert.deepEqual(seventh?.values, { title: "trip 7", details: "bring the umbrella", budget: 700, starts: "2026-02-08" });
    assert.equal(booted.prepare("SELECT count(*) FROM trips").pluck().get(), RECORDS);
    // The Money column's CHECK-free INTEGER and the Date column's CHECK now hold: a text date is refused by SQL itself.
    assert.throws(() => booted.prepare("UPDATE trips SET starts = 'soon' WHERE id = ?").run(id(1)), /CHECK constraint failed/);

    // Indexes as declared after: the renamed column's sort index, none of the removed one's.
    assert.deepEqual(
      names(booted, "index").filter((n) => !n.startsWith("sqlite_")),
      ["trips_list", "trips_sort_budget", "trips_sort_details", "trips_sort_id", "trips_sort_title", "trips_sort_updated_at"],
    );
    const by = sortExpression(after, "budget");
    const plan = booted.prepare(`EXPLAIN QUERY PLAN SELECT * FROM trips WHERE owner = ? ORDER BY ${by} DESC, id DESC LIMIT 21`).all(OWNER);
    assert.match(JSON.stringify(plan), /trips_sort_budget/);
    const top = table.list(OWNER, query({ sort: "budget", desc: true, limit: 2 }));
    assert.deepEqual(
      top.records.map((r) => r.values["budget"]),
      [(RECORDS - 1) * 100, (RECORDS - 2) * 100],
    );
    // Search: the renamed field's words are found, the removed field's are not.
    assert.deepEqual(
      table.list(OWNER, query({ search: ["umbrella"] })).records.map((r) => r.id),
      [id(7)],
    );
    assert.deepEqual(table.list(OWNER, query({ search: ["zeppelin"] })).records, []);
    assert.equal(booted.prepare("SELECT count(*) FROM trips_search").pluck().get(), RECORDS);
    // The search index follows writes after the rebuild (its trigger is back).
    table.delete(OWNER, id(7));
    assert.deepEqual(table.list(OWNER, query({ search: ["umbrella"] })).records, []);

    const ledger = booted.prepare("SELECT name FROM latch_schema WHERE name LIKE 'resource/trips/%' ORDER BY name").pluck().all();
    assert.ok(ledger.includes("resource/trips/history-drop-legacy"));
    assert.ok(ledger.includes("resource/trips/field-details"));
    assert.ok(!ledger.includes("resource/trips/field-note") && !ledger.includes("resource/trips/field-legacy"));
    booted.close();

    const again = open(t, path);
    const kept = snapshot(again);
    assert.deepEqual(applySchema(again, resourceSchema(after)), []);
    assert.deepEqual(snapshot(again), kept);
  });

  test("a new database creates the table as declared now; its history steps do nothing", (t) => {
    const db = open(t, tempFile(t));
    applySchema(db, resourceSchema(after));
    assert.deepEqual((db.prepare("SELECT name FROM pragma_table_info('trips')").pluck().all() as string[]).slice(4), [
      "title",
      "details",
      "budget",
      "starts",
    ]);
    assert.deepEqual(applySchema(db, resourceSchema(after)), []);
  });

  test("a value that does not convert refuses the boot, naming the field, the records and the fix, and changes nothing", (t) => {
    const { path, db } = seeded(t, "next tuesday");
    const kept = snapshot(db);
    db.close();
    const booted = open(t, path);
    assertCode(
      () => applySchema(booted, resourceSchema(after)),
      "ERR_DB_STEP_FAILED",
      /resource "trips" field "starts": 1 record\(s\) hold a value that does not convert, the first is id r00000 \(text → date: the value is not an ISO date "YYYY-MM-DD"\); fix those records/,
    );
    assert.deepEqual(snapshot(booted), kept);
  });

  test("a conversion that is not defined is refused by Validate and at boot, naming the field and the fix", (t) => {
    const wrong = new Resource({
      ...after,
      Form: { Fields: after.Form.Fields.map((f) => (f.Name === "starts" ? { Name: "starts", Label: "Starts", Kind: Kind.Money } : f)) },
      History: [
        ...history.slice(0, 3),
        { Step: "starts-to-money", Retype: { Field: "starts", From: Kind.Text, To: Kind.Money } },
        history[4]!,
      ],
    });
    assertCode(
      () => wrong.Validate(),
      "ERR_MANIFEST_INVALID_HISTORY",
      /field "starts": history step starts-to-money: no conversion from text to money is defined.*go through text/,
    );
    // resourceSchema checks the history too: a schema merged into Options.Schema before mounting is refused before it applies.
    const { db } = seeded(t);
    const kept = snapshot(db);
    assertCode(
      () => applySchema(db, resourceSchema(wrong)),
      "ERR_MANIFEST_INVALID_HISTORY",
      /field "starts".*no conversion from text to money/,
    );
    assert.deepEqual(snapshot(db), kept);
  });

  test("a kind changed without a history entry names the entry to write", (t) => {
    const db = open(t, tempFile(t));
    applySchema(db, resourceSchema(before));
    const drifted = new Resource({
      ...before,
      Form: { Fields: before.Form.Fields.map((f) => (f.Name === "budget" ? { Name: "budget", Label: "Budget", Kind: Kind.Money } : f)) },
    });
    assertCode(
      () => applySchema(db, resourceSchema(drifted)),
      "ERR_DB_STEP_CHANGED",
      /field "budget" of resource "trips" is stored as integer and declared as money: add to the resource's History \{ Step: "budget-to-money", Retype: \{ Field: "budget", From: "integer", To: "money" \} \}/,
    );
  });

  test("Validate refuses a history on a Mergeable resource, a duplicate step and a reused removed name", () => {
    assertCode(
      () => new Resource({ ...after, Store: StoreKind.Mergeable }).Validate(),
      "ERR_MANIFEST_INVALID_HISTORY",
      /History is for Exclusive resources/,
    );
    assertCode(
      () => new Resource({ ...after, History: [...history, history[0]!] }).Validate(),
      "ERR_MANIFEST_INVALID_HISTORY",
      /declared twice/,
    );
    const reused = new Resource({
      ...after,
      Form: { Fields: [...after.Form.Fields, { Name: "legacy", Label: "Legacy", Kind: Kind.Integer }] },
    });
    assertCode(() => reused.Validate(), "ERR_MANIFEST_INVALID_HISTORY", /field "legacy": .*a removed name is not reused/);
  });

  test("a history Step is a-z 0-9 - of 1 to 63 characters", () => {
    assert.equal(HISTORY_STEP_PATTERN.source, "^[a-z0-9][a-z0-9-]{0,62}$");
    const named = (step: string): Resource => new Resource({ ...after, History: [{ ...history[0]!, Step: step }, ...history.slice(1)] });
    named("a".repeat(63)).Validate();
    assertCode(() => named("a".repeat(64)).Validate(), "ERR_MANIFEST_INVALID_HISTORY", /a history Step must match/);
    assertCode(() => named("Note_Rename").Validate(), "ERR_MANIFEST_INVALID_HISTORY", /a history Step must match/);
  });

  test("the conversions: exact or refused, never rounded or cut", () => {
    const field = (Kind_: Field["Kind"], more: Partial<Field> = {}): Field => ({ Name: "f", Label: "F", Kind: Kind_, ...more });
    const run = (from: Field, to: Field, value: string | number | null): unknown =>
      CONVERSIONS.get(`${from.Kind}→${to.Kind}`)?.(value, from, to);
    assert.equal(CONVERSIONS.size, 17);
    assert.deepEqual(run(field(Kind.Money, { Currency: "EUR" }), field(Kind.Integer), 1200), { value: 12 });
    assert.deepEqual(run(field(Kind.Money, { Currency: "EUR" }), field(Kind.Integer), 1250), {
      refused: "is not a whole amount (it has minor units)",
    });
    assert.deepEqual(run(field(Kind.Money, { Currency: "JPY" }), field(Kind.Integer), 1250), { value: 1250 });
    assert.deepEqual(run(field(Kind.Money, { Currency: "EUR" }), field(Kind.Text), -1205), { value: "-12.05" });
    assert.deepEqual(run(field(Kind.Integer), field(Kind.Money, { Currency: "EUR" }), 12), { value: 1200 });
    assert.deepEqual(run(field(Kind.Integer), field(Kind.Money), 10 ** 13), { refused: "is beyond 999999999999999 minor units" });
    assert.deepEqual(run(field(Kind.Textarea), field(Kind.Text), "two\nlines"), { refused: "holds a line break (Text is one line)" });
    assert.deepEqual(run(field(Kind.Text), field(Kind.Textarea, { MaxLength: 3 }), "four"), { refused: "is longer than MaxLength 3" });
    assert.deepEqual(run(field(Kind.Boolean), field(Kind.Text), 1), { value: "true" });
    assert.deepEqual(run(field(Kind.Text), field(Kind.URL), "HTTPS://Example.com"), { value: "https://example.com/" });
    assert.deepEqual(run(field(Kind.Text), field(Kind.URL), "javascript:alert(1)"), { refused: "is not an http or https address" });
    assert.deepEqual(run(field(Kind.Text), field(Kind.Date), ""), { value: null });
    assert.deepEqual(run(field(Kind.Text), field(Kind.Integer, { Max: 9 }), "10"), { refused: "is not a whole number within Min and Max" });
    const choice = field(Kind.Choice, { Choices: [{ Value: "meals", Label: "Meals" }] });
    assert.deepEqual(run(field(Kind.Text), choice, "meals"), { value: "meals" });
    assert.deepEqual(run(field(Kind.Text), choice, "Meals"), { refused: "is not one of the Choices" });
  });
});
