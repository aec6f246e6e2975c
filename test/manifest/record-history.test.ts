/*
 * What a record's events hold for its history (issue 43, item 1; changes.ts): an Exclusive record's creation its values,
 * an update each changed field's value before and after, an agent's change the approval that allowed it; values that
 * do not fit one event (MAX_EVENT_DATA) are left out and the change still lands, its entry naming the fields only, as
 * an event written before issue 43 is shown.
 */
import assert from "node:assert/strict";
import { describe, it, type TestContext } from "node:test";
import { humanActor } from "../../lib/agent/index.ts";
import { agentActor } from "../../lib/agent/actor.ts";
import { applySchema } from "../../lib/db/index.ts";
import { EventStore, MAX_EVENT_DATA, Schema } from "../../lib/events/index.ts";
import { Kind, resourceSchema, ScopeKind, StoreKind } from "../../lib/manifest/index.ts";
import { historyPage } from "../../lib/manifest/changes.ts";
import type { ResourceSpec } from "../../lib/manifest/spec.ts";
import { exclusiveStore, mergeableStore } from "../../lib/manifest/store.ts";
import { open, tempFile } from "../_support/db.ts";

const spec = (store: StoreKind): ResourceSpec => ({
  Name: "memos",
  Route: "/memos",
  Store: store,
  Scope: ScopeKind.UserScoped,
  List: { Columns: [{ Field: "title" }] },
  Form: {
    Fields: [
      { Name: "title", Label: "memos.title", Kind: Kind.Text, Required: true },
      { Name: "body", Label: "memos.body", Kind: Kind.Textarea },
      ...(store === StoreKind.Exclusive ? [{ Name: "notes", Label: "memos.notes", Kind: Kind.Textarea }] : []),
    ],
  },
});

function setup(t: TestContext, kind: StoreKind) {
  const db = open(t, tempFile(t));
  applySchema(db, Schema);
  applySchema(db, resourceSchema(spec(kind)));
  const events = new EventStore(db);
  const store = kind === StoreKind.Exclusive ? exclusiveStore(db, spec(kind), events) : mergeableStore(db, spec(kind), events);
  return { db, events, store };
}

const approved = { owner: "ada@example.com", actor: agentActor("ledger"), approval: { id: "appr-1", standing: false } };

describe("a record's events, as its history reads them", () => {
  for (const kind of [StoreKind.Exclusive, StoreKind.Mergeable]) {
    it(`${kind}: the creation's values, an update's before and after, an agent's approval, newest first`, (t) => {
      const { events, store } = setup(t, kind);
      const values = kind === StoreKind.Exclusive ? { title: "a", body: "x", notes: "" } : { title: "a", body: "x" };
      const { id, version } = store.create({ owner: "ada@example.com", actor: humanActor() }, values);
      assert.equal(store.update(approved, id, version, { title: "b", body: "x" }).kind, "ok");
      const page = historyPage(events, spec(kind), id);
      assert.deepEqual(
        page.entries.map((e) => [e.seq, e.kind, e.actor, e.person, e.approval, e.values, e.changes]),
        [
          [
            2,
            "updated",
            "agent:ledger",
            "ada@example.com",
            { id: "appr-1", standing: false },
            true,
            [{ field: "title", before: "a", after: "b" }],
          ],
          [1, "created", "human", "ada@example.com", undefined, true, Object.entries(values).map(([field, after]) => ({ field, after }))],
        ],
      );
      assert.equal(page.next, undefined);
    });
  }

  it("a standing approval is named as one", (t) => {
    const { events, store } = setup(t, StoreKind.Exclusive);
    const { id } = store.create({ ...approved, approval: { id: "st-9", standing: true } }, { title: "a", body: "", notes: "" });
    assert.deepEqual(events.read(`memos:${id}`)[0]?.Data, { values: { title: "a", body: "", notes: "" }, standing: "st-9" });
    assert.deepEqual(historyPage(events, spec(StoreKind.Exclusive), id).entries[0]?.approval, { id: "st-9", standing: true });
  });

  it("Exclusive: values too large for one event are left out, the change lands, its entry names the fields", (t) => {
    const { db, events, store } = setup(t, StoreKind.Exclusive);
    // 2,000 three-byte characters: 6 KB a value, so three of them (or two before and after) pass MAX_EVENT_DATA.
    const long = (c: string): string => c.repeat(2000);
    assert.ok(3 * Buffer.byteLength(long("€")) > MAX_EVENT_DATA);
    const { id, version } = store.create(
      { owner: "ada@example.com", actor: humanActor() },
      { title: long("€"), body: long("€"), notes: long("€") },
    );
    assert.equal(
      store.update({ owner: "ada@example.com", actor: humanActor() }, id, version, { body: long("¢"), notes: long("¢") }).kind,
      "ok",
    );
    assert.equal(db.prepare("SELECT body FROM memos WHERE id = ?").pluck().get(id), long("¢"));
    assert.deepEqual(
      events.read(`memos:${id}`).map((e) => e.Data),
      [{}, { fields: ["body", "notes"] }],
    );
    assert.deepEqual(
      historyPage(events, spec(StoreKind.Exclusive), id).entries.map((e) => [e.kind, e.values, e.changes]),
      [
        [
          "updated",
          false,
          [
            { field: "body", after: null },
            { field: "notes", after: null },
          ],
        ],
        ["created", false, []],
      ],
    );
  });
});
