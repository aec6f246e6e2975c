/*
 * The Mergeable store over a real database: an update reads only the
 * events since its base (each `.updated` event keeps the values it
 * replaced), a base more than MERGE_MAX_BEHIND events behind is refused
 * as stale, and whatever a form accepts fits one event, in any script.
 */
import assert from "node:assert/strict";
import { describe, it, type TestContext } from "node:test";
import { humanActor, ToolRegistry } from "../../lib/agent/index.ts";
import { applySchema } from "../../lib/db/index.ts";
import { EventStore, MAX_EVENT_DATA, Schema } from "../../lib/events/index.ts";
import { Kind, mountResource, Resource, resourceSchema, ScopeKind, StoreKind } from "../../lib/manifest/index.ts";
import { isManifestError } from "../../lib/manifest/errors.ts";
import type { ResourceSpec } from "../../lib/manifest/spec.ts";
import { MERGE_RATE } from "../../lib/manifest/merge.ts";
import { LIST_PAGE_SIZE } from "../../lib/manifest/list.ts";
import { MERGE_MAX_BEHIND, mergeableStore } from "../../lib/manifest/store.ts";
import { parseValues, TEXTAREA_MAX_LENGTH } from "../../lib/manifest/values.ts";
import { Mux } from "../../lib/router/index.ts";
import { FakeClock } from "../_support/clock.ts";
import { open, tempFile } from "../_support/db.ts";

const notes: ResourceSpec = {
  Name: "notes",
  Route: "/notes",
  Store: StoreKind.Mergeable,
  Scope: ScopeKind.UserScoped,
  List: { Columns: [{ Field: "title" }] },
  Form: {
    Fields: [
      { Name: "title", Label: "notes.title", Kind: Kind.Text },
      { Name: "body", Label: "notes.body", Kind: Kind.Textarea },
    ],
  },
};
const ada = { owner: "ada@example.com", actor: humanActor() };

function newStore(t: TestContext, clock = new FakeClock()): { store: ReturnType<typeof mergeableStore>; events: EventStore } {
  const db = open(t, tempFile(t));
  applySchema(db, Schema);
  applySchema(db, resourceSchema(notes));
  const events = new EventStore(db);
  return { store: mergeableStore(db, notes, events, clock), events };
}

/** Makes one line merge on `id` from `head`: line 1 edited from the head, then line 3 from the same base. Returns the second outcome. */
function lineMerge(store: ReturnType<typeof mergeableStore>, who: typeof ada, id: string, head: number, n: number) {
  const first = store.update(who, id, head, { body: `x${n}\nb\nc` });
  assert.equal(first.kind, "ok");
  return store.update(who, id, head, { body: `a\nb\nz${n}` });
}

describe("Mergeable store", () => {
  it("merges from a base exactly MERGE_MAX_BEHIND events behind and refuses one further behind as stale", (t) => {
    assert.equal(MERGE_MAX_BEHIND, 100);
    const { store } = newStore(t);
    const { id, version: first } = store.create(ada, { title: "t", body: "one\ntwo" });
    let head = first;
    for (let n = 1; n <= MERGE_MAX_BEHIND; n++) {
      const outcome = store.update(ada, id, head, { title: `t${n}` });
      assert.equal(outcome.kind, "ok");
      if (outcome.kind === "ok") head = outcome.version;
    }
    assert.equal(head - first, MERGE_MAX_BEHIND);
    // From the first version: the body edit merges with a hundred title edits it never saw.
    const merged = store.update(ada, id, first, { title: "t", body: "ONE\ntwo" });
    assert.equal(merged.kind, "ok");
    assert.deepEqual(store.get(ada.owner, id)?.record.values, { title: `t${MERGE_MAX_BEHIND}`, body: "ONE\ntwo" });
    const stale = store.update(ada, id, first, { body: "one\nTWO" });
    assert.equal(stale.kind, "stale");
    if (stale.kind === "stale") assert.equal(stale.version, head + 1);
  });

  it("makes MERGE_RATE line merges per person a minute (20); the next is refused as busy with when to retry, changing nothing", (t) => {
    assert.deepEqual({ ...MERGE_RATE }, { Max: 20, Window: 60 * 1000 });
    const clock = new FakeClock();
    const { store, events } = newStore(t, clock);
    const { id } = store.create(ada, { title: "t", body: "a\nb\nc" });
    const rounds = (from: number, count: number): void => {
      for (let n = from; n < from + count; n++) {
        // Back to the base text first, so each round's two edits are from one version.
        const reset = store.update(ada, id, events.version(`notes:${id}`), { body: "a\nb\nc" });
        assert.equal(reset.kind, "ok");
        const merged = lineMerge(store, ada, id, events.version(`notes:${id}`), n);
        assert.equal(merged.kind, "ok", `merge ${n}`);
        assert.equal(store.get(ada.owner, id)?.record.values["body"], `x${n}\nb\nz${n}`);
      }
    };
    rounds(0, MERGE_RATE.Max);
    clock.advance(1000);
    store.update(ada, id, events.version(`notes:${id}`), { body: "a\nb\nc" });
    const head = events.version(`notes:${id}`);
    const busy = lineMerge(store, ada, id, head, 99);
    assert.deepEqual(busy, { kind: "busy", retryAfter: (MERGE_RATE.Window - 1000) / 1000 });
    assert.equal(events.version(`notes:${id}`), head + 1, "only the first, plain edit was stored");
    assert.equal(store.get(ada.owner, id)?.record.values["body"], "x99\nb\nc");
    // Edits that need no line merge still land, and another person merges as usual.
    assert.equal(store.update(ada, id, head + 1, { title: "u" }).kind, "ok");
    const bob = { owner: "bob@example.com", actor: humanActor() };
    const other = store.create(bob, { title: "t", body: "a\nb\nc" });
    assert.equal(lineMerge(store, bob, other.id, other.version, 1).kind, "ok");
    // A minute after the first merge of the window, room again.
    clock.advance(MERGE_RATE.Window);
    rounds(100, 1);
  });

  it("takes the base from the values each update replaced, so a field changed twice since merges against its base", (t) => {
    const { store, events } = newStore(t);
    const { id, version } = store.create(ada, { title: "a", body: "x\ny\nz" });
    assert.equal(store.update(ada, id, version, { body: "X\ny\nz" }).kind, "ok");
    assert.equal(store.update(ada, id, version + 1, { body: "X\nY\nz" }).kind, "ok");
    assert.deepEqual(events.read(`notes:${id}`, 2, 1)[0]?.Data, { base: 1, values: { body: "X\ny\nz" }, before: { body: "x\ny\nz" } });
    assert.equal(store.update(ada, id, version, { body: "x\ny\nZ" }).kind, "ok");
    assert.equal(store.get(ada.owner, id)?.record.values["body"], "X\nY\nZ");
    const conflict = store.update(ada, id, version, { title: "b", body: "x\nq\nz" });
    assert.equal(conflict.kind, "conflict");
    if (conflict.kind === "conflict") assert.deepEqual([...conflict.conflicts], [["body", { mine: "x\nq\nz", theirs: "X\nY\nZ" }]]);
  });

  it("keeps a conflict of the longest text in three-byte characters in one event, with both sides", (t) => {
    const { store, events } = newStore(t);
    const cjk = (c: string): string => c.repeat(TEXTAREA_MAX_LENGTH);
    const entered = parseValues(
      notes,
      new Map([
        ["title", "題".repeat(200)],
        ["body", cjk("一")],
      ]),
      "ja",
    );
    assert.ok(entered.ok);
    const { id, version } = store.create(ada, entered.values);
    assert.equal(store.update(ada, id, version, { title: "頁".repeat(200), body: cjk("二") }).kind, "ok");
    const conflict = store.update(ada, id, version, { title: "名".repeat(200), body: cjk("三") });
    assert.equal(conflict.kind, "conflict");
    if (conflict.kind === "conflict") assert.deepEqual([...conflict.conflicts.keys()], ["title", "body"]);
    const last = events.read(`notes:${id}`, 3, 1)[0];
    assert.equal(last?.Type, "notes.conflict");
    assert.deepEqual(last?.Data, { base: 1, values: { title: "名".repeat(200), body: cjk("三") }, conflicts: ["title", "body"] });
  });

  it("refuses a Mergeable resource whose fields could not fit one event, and a lone surrogate", () => {
    const fields = (max: number): ResourceSpec => ({
      ...notes,
      List: { Columns: [] },
      Form: { Fields: [{ Name: "body", Label: "notes.body", Kind: Kind.Textarea, MaxLength: max }] },
    });
    // body: 2 × ("body": 4+4 bytes, "…" 3·max+2) + 64 ≤ MAX_EVENT_DATA
    const fits = Math.floor(((MAX_EVENT_DATA - 64) / 2 - 10) / 3);
    new Resource(fields(fits)).Validate();
    assert.throws(
      () => new Resource(fields(fits + 1)).Validate(),
      (e: unknown) => isManifestError(e) && e.code === "ERR_MANIFEST_INVALID_FIELD",
    );
    new Resource({ ...fields(fits + 1), Store: StoreKind.Exclusive }).Validate();
    const lone = parseValues(notes, new Map([["title", "a\uD800b"]]), "en");
    assert.deepEqual(lone.ok ? undefined : lone.errors.get("title")?.key, "resource.err.invalid");
    assert.ok(parseValues(notes, new Map([["title", "a😀b"]]), "en").ok);
  });

  it("refuses the update tool's call past MERGE_RATE with a 429 that says when to retry", async (t) => {
    const db = open(t, tempFile(t));
    applySchema(db, Schema);
    const mounted = mountResource(new Resource(notes), {
      db,
      mux: new Mux(),
      tools: new ToolRegistry(),
      events: new EventStore(db),
      origin: "http://tools.test",
      requireSession: (next) => next,
      ctxFrom: () => undefined,
      clock: new FakeClock(),
    });
    type Written = { id: string; version: number };
    const tool =
      (name: string) =>
      async (args: Record<string, string | number>): Promise<Written> =>
        (await mounted.Tools.find((d) => d.Name === name)?.Run?.({
          Args: new Map(Object.entries(args)),
          Actor: humanActor(),
          Subject: ada.owner,
        })) as Written;
    const { id, version } = await tool("notes_create")({ title: "t", body: "a\nb\nc" });
    let head = version;
    for (let n = 0; n <= MERGE_RATE.Max; n++) {
      await tool("notes_update")({ id, version: head, body: `x${n}\nb\nc` });
      const merge = tool("notes_update")({ id, version: head, body: `a\nb\nz${n}` });
      if (n === MERGE_RATE.Max) {
        await assert.rejects(merge, { status: 429, message: "update notes: too many merged edits for this person; try again in 60 s" });
        break;
      }
      head = (await tool("notes_update")({ id, version: (await merge).version, body: "a\nb\nc" })).version;
    }
  });

  it("formats a tool's refusal with own arguments only (an inherited name such as constructor stays as written)", async (t) => {
    const db = open(t, tempFile(t));
    applySchema(db, Schema);
    const label = (key: string): string => (key === "resource.err.too_long" ? "at most {max} {constructor}" : key);
    const mounted = mountResource(new Resource(notes), {
      db,
      mux: new Mux(),
      tools: new ToolRegistry(),
      events: new EventStore(db),
      origin: "http://tools.test",
      requireSession: (next) => next,
      ctxFrom: () => undefined,
      label,
    });
    const create = mounted.Tools.find((d) => d.Name === "notes_create");
    await assert.rejects(
      async () => create?.Run?.({ Args: new Map([["title", "x".repeat(201)]]), Actor: humanActor(), Subject: "ada@example.com" }),
      { message: "title: at most 200 {constructor}" },
    );
  });

  it("prepares each statement of a resource's table once, however many calls", (t) => {
    const db = open(t, tempFile(t));
    applySchema(db, Schema);
    applySchema(db, resourceSchema(notes));
    const prepared: string[] = [];
    const prepare = db.prepare.bind(db);
    // The real handle, only counting what the table asks it to prepare.
    const counted = new Proxy(db, {
      get: (target, key) => (key === "prepare" ? (sql: string) => (prepared.push(sql), prepare(sql)) : Reflect.get(target, key)),
    });
    const store = mergeableStore(counted, notes, new EventStore(db));
    const round = (): void => {
      const { id, version } = store.create(ada, { title: "t", body: "b" });
      store.update(ada, id, version, { title: "u" });
      store.list(ada.owner, { filters: [], search: [], sort: "created_at", desc: true, after: undefined, limit: 20 });
      store.delete(ada, id);
    };
    round();
    const once = prepared.length;
    for (let n = 0; n < 5; n++) round();
    assert.equal(prepared.length, once);
    assert.ok(once > 0);
  });
});

describe("RecordStore.list defaults", () => {
  it(`lists newest first, LIST_PAGE_SIZE (${LIST_PAGE_SIZE}) a page, unfiltered, when given no query or part of one`, (t) => {
    assert.equal(LIST_PAGE_SIZE, 20);
    const clock = new FakeClock();
    const db = open(t, tempFile(t));
    applySchema(db, Schema);
    applySchema(db, resourceSchema(notes));
    const store = mergeableStore(db, notes, new EventStore(db, { Clock: clock }), clock);
    const ids: string[] = [];
    for (let n = 0; n < 22; n++) {
      ids.push(store.create(ada, { title: `t${n}`, body: "" }).id);
      clock.advance(1000);
    }
    const page = store.list(ada.owner);
    assert.deepEqual(
      page.records.map((r) => r.id),
      ids.slice(2).reverse(),
    );
    assert.notEqual(page.next, undefined);
    assert.deepEqual(
      store.list(ada.owner, { after: page.next }).records.map((r) => r.id),
      [ids[1], ids[0]],
    );
    assert.deepEqual(
      store.list(ada.owner, { desc: false, limit: 2 }).records.map((r) => r.id),
      ids.slice(0, 2),
    );
    assert.deepEqual(
      store.list(ada.owner, { filters: [{ field: "title", contains: "t21" }] }).records.map((r) => r.id),
      [ids[21]],
    );
  });
});
