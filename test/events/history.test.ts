/*
 * A person's history across changes of address (lib/events history.ts,
 * issue 37): linking streams appends and changes nothing; a reader follows
 * the links back, an undo (A to B to A) included, never past
 * MAX_HISTORY_PARTS; nobody can append a link of their own; the one
 * erasure deletes the history and records itself without the address.
 */
import { describe, it, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { applySchema, type DB } from "../../lib/db/index.ts";
import { humanActor } from "../../lib/agent/index.ts";
import { EventStore, Schema, auditStream } from "../../lib/events/index.ts";
import { ERASURES_STREAM, MAX_HISTORY_PARTS } from "../../lib/events/history.ts";
import { open } from "../_support/db.ts";

const A = "ada@example.com";
const B = "ada@example.net";
const C = "carol@example.org";

function store(t: TestContext): { db: DB; events: EventStore; now: { t: number } } {
  const db = open(t, ":memory:");
  applySchema(db, Schema);
  const now = { t: Date.UTC(2026, 0, 2) };
  return { db, events: new EventStore(db, { Clock: { now: () => new Date((now.t += 1000)) } }), now };
}

const audit = (events: EventStore, subject: string, type: string): void =>
  void events.appendAudit({ Type: type, Data: {}, Actor: humanActor(), Subject: subject });
const rows = (db: DB): string[] =>
  (db.prepare("SELECT * FROM events ORDER BY stream, seq").all() as object[]).map((r) => JSON.stringify(r));
const types = (events: EventStore, subject: string): string[] =>
  events.latestHistory(subject, 1000).map((e) => `${e.Stream.slice(6)} ${e.Type}`);

describe("EventStore history", () => {
  it("a change of address appends a link to each stream and changes no event; the new address reads the whole history", (t) => {
    const { db, events } = store(t);
    audit(events, A, "auth.signed_in");
    audit(events, A, "agent.token_minted");
    const before = rows(db);
    events.continueHistory(A, B);
    audit(events, B, "auth.address_changed");
    const after = rows(db);
    assert.deepEqual(
      after.filter((r) => before.includes(r)),
      before,
      "every earlier event, byte for byte",
    );
    assert.equal(after.length, before.length + 3);
    assert.deepEqual(types(events, B), [
      `${B} auth.address_changed`,
      `${B} history.continued_from`,
      `${A} history.continues`,
      `${A} agent.token_minted`,
      `${A} auth.signed_in`,
    ]);
  });

  it("a later holder of the old address does not read the earlier holder's history, nor they its", (t) => {
    const { events } = store(t);
    audit(events, A, "auth.signed_in");
    events.continueHistory(A, B);
    audit(events, A, "carol.signed_in");
    assert.deepEqual(types(events, A), [`${A} carol.signed_in`]);
    assert.ok(!types(events, B).includes(`${A} carol.signed_in`));
  });

  it("an undo (A to B to A) reads both histories once, in time order, and stops", (t) => {
    const { events } = store(t);
    audit(events, A, "a.first");
    events.continueHistory(A, B);
    audit(events, B, "b.made");
    audit(events, A, "a.again");
    events.continueHistory(B, A);
    assert.deepEqual(types(events, A), [
      `${A} history.continued_from`,
      `${B} history.continues`,
      `${A} a.again`,
      `${B} b.made`,
      `${B} history.continued_from`,
      `${A} history.continues`,
      `${A} a.first`,
    ]);
    assert.equal(events.historyOf(A).length, 3);
  });

  it(`follows at most MAX_HISTORY_PARTS (${MAX_HISTORY_PARTS}) parts`, (t) => {
    assert.equal(MAX_HISTORY_PARTS, 32);
    const { events } = store(t);
    for (let i = 0; i < MAX_HISTORY_PARTS + 8; i++) events.continueHistory(i % 2 === 0 ? A : B, i % 2 === 0 ? B : A);
    assert.equal(events.historyOf(A).length, MAX_HISTORY_PARTS);
  });

  it("refuses a history event from anyone but the store: a forged link would show another person's history", (t) => {
    const { db, events } = store(t);
    audit(events, C, "auth.signed_in");
    for (const type of ["history.continued_from", "history.erased"]) {
      assert.throws(
        () => events.appendAudit({ Type: type, Data: { stream: auditStream(C), seq: 1 }, Actor: humanActor(), Subject: A }),
        /Type history\.\* is the event store's own/,
      );
      assert.throws(() => events.append({ Stream: "x:1", Expected: 0, Type: type, Data: {}, Actor: humanActor(), Subject: A }), /history/);
    }
    assert.equal((db.prepare("SELECT count(*) AS n FROM events").get() as { n: number }).n, 1);
  });

  it("the erasure deletes every part of the history, pseudonymises the person elsewhere, and records itself without the address", (t) => {
    const { db, events } = store(t);
    audit(events, A, "auth.signed_in");
    events.append({ Stream: "board:1", Expected: 0, Type: "board.posted", Data: {}, Actor: humanActor(), Subject: A });
    events.append({ Stream: "note:9", Expected: 0, Type: "note.created", Data: {}, Actor: humanActor(), Subject: B });
    events.continueHistory(A, B);
    audit(events, C, "auth.signed_in");
    events.eraseHistory(B, ["note:9"], "pseudonymize", "deleted:x");
    assert.deepEqual(
      (db.prepare("SELECT stream, type, subject, data FROM events ORDER BY stream, seq").all() as Record<string, string>[]).map((r) =>
        Object.values(r).join(" "),
      ),
      [
        `audit:${C} auth.signed_in ${C} {}`,
        "board:1 board.posted deleted:x {}",
        `${ERASURES_STREAM} history.erased deleted:x {"deleted":4,"pseudonymized":1,"rewritten":1,"others":"pseudonymize"}`,
      ],
    );
  });
});
