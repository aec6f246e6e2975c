/*
 * The events schema owns every index on its table (issue 37, one owner per
 * table): the subject index account's step account/002-events-subject used
 * to create is events/004-subject-index's, on a new database and on one
 * that applied the old step.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { applySchema, type Step } from "../../lib/db/index.ts";
import { Schema } from "../../lib/events/index.ts";
import { Schema as AccountSchema } from "../../lib/account/index.ts";
import { open } from "../_support/db.ts";

// The step as account shipped it before issue 37, verbatim.
const OLD_ACCOUNT_STEP: Step = {
  Name: "account/002-events-subject",
  SQL: "CREATE INDEX account_events_subject ON events (subject);",
};

const indexes = (db: ReturnType<typeof open>): string[] =>
  db
    .prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'events' AND sql IS NOT NULL ORDER BY name")
    .pluck()
    .all();
const recorded = (db: ReturnType<typeof open>): string[] =>
  db.prepare<[], string>("SELECT name FROM latch_schema ORDER BY name").pluck().all();

describe("events schema", () => {
  it("a new database gets the subject index from events alone, and account no longer names the table", (t) => {
    const db = open(t, ":memory:");
    applySchema(db, [...Schema, ...AccountSchema]);
    assert.deepEqual(indexes(db), ["events_by_people", "events_by_subject", "events_erased", "events_history"]);
    assert.equal(
      AccountSchema.some((s) => /\bevents\b/.test(s.SQL)),
      false,
    );
    assert.equal(recorded(db).includes("account/002-events-subject"), false);
  });

  it("a database that applied account's old step keeps one subject index, and the old step's record is forgotten", (t) => {
    const db = open(t, ":memory:");
    const [first, ...rest] = AccountSchema;
    applySchema(db, [...Schema.slice(0, 3), first!, OLD_ACCOUNT_STEP, ...rest]);
    assert.deepEqual(indexes(db), ["account_events_subject", "events_by_people", "events_history"]);
    assert.deepEqual(applySchema(db, [...Schema, ...AccountSchema]), ["events/004-subject-index", "events/005-chain"]);
    assert.deepEqual(indexes(db), ["events_by_people", "events_by_subject", "events_erased", "events_history"]);
    assert.equal(recorded(db).includes("account/002-events-subject"), false);
    assert.deepEqual(applySchema(db, [...Schema, ...AccountSchema]), []);
  });
});
