import { describe, it, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { Worker } from "node:worker_threads";
import { fileURLToPath } from "node:url";
import { applySchema, type DB } from "../../lib/db/index.ts";
import { humanActor } from "../../lib/agent/index.ts";
import { agentActor } from "../../lib/agent/actor.ts";
import { EVENTS_ERROR_CODES, isEventsError } from "../../lib/events/errors.ts";
import { EventStore, EventConflictError, MAX_EVENT_DATA, Schema, auditStream, isEventConflict } from "../../lib/events/index.ts";
import { MAX_READ, type AppendInput } from "../../lib/events/store.ts";
import { open, tempFile } from "../_support/db.ts";

function store(t: TestContext, path = ":memory:"): { db: DB; events: EventStore; now: { t: number } } {
  const db = open(t, path);
  applySchema(db, Schema);
  const now = { t: Date.UTC(2026, 0, 2, 3, 4, 5) };
  return { db, events: new EventStore(db, { Clock: { now: () => new Date(now.t) } }), now };
}

const base: AppendInput = {
  Stream: "invoice:1",
  Expected: 0,
  Type: "invoice.created",
  Data: { total: 12 },
  Actor: humanActor(),
  Subject: "ada@example.com",
};

describe("EventStore.append()", () => {
  it("stores each field and numbers events from 1", (t) => {
    const { db, events } = store(t);
    const first = events.append(base);
    const second = events.append({ ...base, Expected: 1, Type: "invoice.paid", Data: { via: "card" }, Actor: agentActor("billing-bot") });
    assert.deepEqual(
      { ...first, At: first.At.toISOString() },
      {
        Stream: "invoice:1",
        Seq: 1,
        Type: "invoice.created",
        Data: { total: 12 },
        Actor: "human",
        Subject: "ada@example.com",
        At: "2026-01-02T03:04:05.000Z",
      },
    );
    assert.equal(second.Seq, 2);
    assert.equal(second.Actor, "agent:billing-bot");
    const rows = db.prepare("SELECT seq, actor, data FROM events ORDER BY seq").all();
    assert.deepEqual(rows, [
      { seq: 1, actor: "human", data: '{"total":12}' },
      { seq: 2, actor: "agent:billing-bot", data: '{"via":"card"}' },
    ]);
  });

  it("refuses an unexpected sequence with a typed conflict and writes nothing", (t) => {
    const { db, events } = store(t);
    events.append(base);
    for (const expected of [0, 2]) {
      assert.throws(
        () => events.append({ ...base, Expected: expected }),
        (err: unknown) => {
          assert.ok(err instanceof EventConflictError);
          assert.ok(isEventConflict(err));
          assert.equal(err.status, 409);
          assert.equal(err.expected, expected);
          assert.equal(err.actual, 1);
          assert.match(err.message, /stream is at sequence 1, not \d/);
          return true;
        },
      );
    }
    assert.deepEqual(db.prepare("SELECT count(*) AS n FROM events").get(), { n: 1 });
  });

  const bad: { name: string; input: Partial<AppendInput> & Record<string, unknown>; message: RegExp }[] = [
    { name: "empty stream", input: { Stream: "" }, message: /Stream must be/ },
    { name: "stream with a newline", input: { Stream: "a\nb" }, message: /Stream must be/ },
    { name: "stream too long", input: { Stream: "s".repeat(263) }, message: /Stream must be 1-262 characters/ },
    { name: "negative expected", input: { Expected: -1 }, message: /Expected must be/ },
    { name: "fractional expected", input: { Expected: 0.5 }, message: /Expected must be/ },
    { name: "uppercase type", input: { Type: "Invoice.Created" }, message: /Type must match/ },
    { name: "empty type", input: { Type: "" }, message: /Type must match/ },
    { name: "array data", input: { Data: [1] as unknown as Record<string, unknown> }, message: /Data must be a JSON object/ },
    { name: "null data", input: { Data: null as unknown as Record<string, unknown> }, message: /Data must be a JSON object/ },
    { name: "data with a bigint", input: { Data: { n: 1n } }, message: /Data must serialize/ },
    { name: "data too large", input: { Data: { s: "x".repeat(MAX_EVENT_DATA) } }, message: /larger than 16384 bytes/ },
    { name: "actor not in audit form", input: { Actor: { String: () => "agent:Bad Name" } }, message: /Actor must be/ },
    { name: "actor missing", input: { Actor: undefined as unknown as AppendInput["Actor"] }, message: /Actor must be/ },
    { name: "empty subject", input: { Subject: "" }, message: /Subject must be/ },
  ];
  for (const row of bad) {
    it(`refuses ${row.name} with 400 and stores nothing`, (t) => {
      const { db, events } = store(t);
      assert.throws(
        () => events.append({ ...base, ...row.input } as AppendInput),
        (err: unknown) => {
          assert.ok(isEventsError(err));
          assert.equal(err.code, "ERR_EVENTS_INVALID_EVENT");
          assert.equal(err.status, 400);
          assert.match(err.message, /^append event: /);
          assert.match(err.message, row.message);
          return true;
        },
      );
      assert.deepEqual(db.prepare("SELECT count(*) AS n FROM events").get(), { n: 0 });
    });
  }

  it("pins the data limit at 16 KiB", () => assert.equal(MAX_EVENT_DATA, 16 * 1024));
});

describe("EventStore.appendAudit()", () => {
  it("appends at the end of audit:<subject> whatever its sequence", (t) => {
    const { events } = store(t);
    const a = events.appendAudit({ Type: "tool.call", Data: { tool: "x" }, Actor: agentActor("bot"), Subject: "ada@example.com" });
    const b = events.appendAudit({ Type: "auth.signin", Data: {}, Actor: humanActor(), Subject: "ada@example.com" });
    assert.equal(auditStream("ada@example.com"), "audit:ada@example.com");
    assert.deepEqual([a.Stream, a.Seq, b.Seq], ["audit:ada@example.com", 1, 2]);
    assert.deepEqual(
      events.read("audit:ada@example.com").map((e) => e.Actor),
      ["agent:bot", "human"],
    );
  });

  it("reads the audit stream of the longest subject it takes (256 characters), and no stream one character longer", (t) => {
    const { events } = store(t);
    const subject = "s".repeat(256);
    events.appendAudit({ Type: "auth.signed_in", Data: {}, Actor: humanActor(), Subject: subject });
    assert.deepEqual(
      events.read(auditStream(subject)).map((e) => e.Subject),
      [subject],
    );
    assert.equal(events.version(auditStream(subject)), 1);
    assert.throws(() => events.read(`${auditStream(subject)}x`), /Stream must be 1-262 characters/);
    assert.throws(
      () => events.appendAudit({ Type: "auth.signed_in", Data: {}, Actor: humanActor(), Subject: `${subject}s` }),
      /Subject must be 1-256/,
    );
  });
});

describe("EventStore OnAppend", () => {
  it("sees each stored event inside its append, and a throw there stores nothing", (t) => {
    const db = open(t, ":memory:");
    applySchema(db, Schema);
    const seen: string[] = [];
    let refuse = false;
    const events = new EventStore(db, {
      OnAppend: (event) => {
        assert.ok(db.inTransaction, "OnAppend runs inside the append's transaction");
        if (refuse) throw new Error("refused");
        seen.push(`${event.Stream}#${event.Seq} ${event.Type}`);
      },
    });
    events.append(base);
    events.appendAudit({ Type: "auth.signed_in", Data: {}, Actor: humanActor(), Subject: "ada@example.com" });
    refuse = true;
    assert.throws(() => events.append({ ...base, Expected: 1, Type: "invoice.paid" }), /refused/);
    assert.deepEqual(seen, ["invoice:1#1 invoice.created", "audit:ada@example.com#1 auth.signed_in"]);
    assert.equal(events.version("invoice:1"), 1);
  });
});

describe("EventStore.latest()", () => {
  it("returns the newest events first, of people or of agents apart, so a flood of one never hides the other", (t) => {
    const { db, events } = store(t);
    const audit = { Type: "tool.call", Data: {}, Subject: "ada@example.com" };
    events.appendAudit({ ...audit, Type: "auth.signed_in", Actor: humanActor() });
    for (let i = 0; i < 1500; i++) events.appendAudit({ ...audit, Data: { i }, Actor: agentActor("junk") });
    events.appendAudit({ ...audit, Type: "agent.token_minted", Actor: humanActor() });
    events.append({ ...base, Stream: "invoice:9", Actor: humanActor() });
    const stream = auditStream("ada@example.com");
    assert.deepEqual(
      events.latest(stream, 10, "human").map((e) => [e.Seq, e.Type]),
      [
        [1502, "agent.token_minted"],
        [1, "auth.signed_in"],
      ],
    );
    assert.deepEqual(
      events.latest(stream, 3, "agent").map((e) => e.Data["i"]),
      [1499, 1498, 1497],
    );
    assert.deepEqual(
      events.latest(stream, 2).map((e) => e.Seq),
      [1502, 1501],
    );
    assert.equal(events.latest(stream, 5000, "agent").length, MAX_READ, "capped like read");
    const plan = db
      .prepare(
        "EXPLAIN QUERY PLAN SELECT * FROM events INDEXED BY events_by_people WHERE stream = ? AND actor = 'human' ORDER BY seq DESC LIMIT ?",
      )
      .all(stream, 10) as { detail: string }[];
    assert.match(plan.map((p) => p.detail).join("; "), /USING INDEX events_by_people/, "people's events without reading the agents'");
    assert.throws(
      () => events.latest(stream, 0),
      (err: unknown) => isEventsError(err) && err.status === 400,
    );
  });
});

describe("EventStore.read()", () => {
  it("reads a stream from a sequence, in order, and nothing of other streams", (t) => {
    const { events } = store(t);
    for (let i = 0; i < 5; i++) events.append({ ...base, Expected: i, Data: { i } });
    events.append({ ...base, Stream: "invoice:2" });
    assert.deepEqual(
      events.read("invoice:1", 3).map((e) => [e.Seq, e.Data["i"]]),
      [
        [3, 2],
        [4, 3],
        [5, 4],
      ],
    );
    assert.deepEqual(
      events.read("invoice:1", 2, 2).map((e) => e.Seq),
      [2, 3],
    );
    assert.deepEqual(events.read("invoice:1", 6), []);
    assert.equal(events.version("invoice:1"), 5);
    assert.equal(events.version("nothing"), 0);
    assert.equal(MAX_READ, 1000);
  });

  it("reads at most MAX_READ as a range of sequences, with no LIMIT bound for SQLite to plan again at every read", (t) => {
    const db = open(t, ":memory:");
    applySchema(db, Schema);
    const prepare = t.mock.method(db, "prepare");
    const events = new EventStore(db);
    db.transaction(() => {
      for (let i = 0; i < MAX_READ + 5; i++) events.append({ ...base, Expected: i, Data: { i } });
    })();
    const all = events.read("invoice:1");
    assert.equal(all.length, MAX_READ);
    assert.deepEqual([all[0]?.Seq, all.at(-1)?.Seq], [1, MAX_READ]);
    assert.deepEqual(
      events.read("invoice:1", MAX_READ + 1).map((e) => e.Seq),
      [1001, 1002, 1003, 1004, 1005],
    );
    assert.equal(events.read("invoice:1", 998, 5000).length, 8);
    assert.equal(events.chainLines("invoice:1").length, MAX_READ);
    const prepared = prepare.mock.calls.map((call) => String(call.arguments[0]));
    const read = prepared.filter((sql) => sql.includes("seq >= ?"));
    assert.equal(read.length, 1, prepared.join("\n"));
    assert.doesNotMatch(read[0] ?? "", /LIMIT/);
  });

  it("refuses a bad bound with 400", (t) => {
    const { events } = store(t);
    for (const [from, limit] of [
      [0, 1],
      [1, 0],
      [1.5, 1],
    ] as const) {
      assert.throws(
        () => events.read("s", from, limit),
        (err: unknown) => isEventsError(err) && err.status === 400,
      );
    }
  });
});

describe("EventStore concurrency", () => {
  it("lets exactly one of many writers on separate connections append at one expected sequence", async (t) => {
    const path = tempFile(t);
    const { events } = store(t, path);
    events.append({ ...base, Stream: "race" });
    const WRITERS = 6;
    const barrier = new SharedArrayBuffer(8);
    const gate = new Int32Array(barrier);
    const script = fileURLToPath(new URL("../_support/events-worker.js", import.meta.url));
    const outcomes = Array.from({ length: WRITERS }, (_, i) => {
      const worker = new Worker(script, { workerData: { path, stream: "race", expected: 1, name: `writer-${i}`, barrier } });
      return new Promise<string>((resolve, reject) => {
        worker.once("message", resolve);
        worker.once("error", reject);
      });
    });
    // Release the writers together once every one is waiting at the barrier.
    while (Atomics.load(gate, 1) < WRITERS) await new Promise((r) => setImmediate(r));
    Atomics.store(gate, 0, 1);
    Atomics.notify(gate, 0);
    const results = await Promise.all(outcomes);
    assert.equal(results.filter((r) => r === "ok").length, 1, results.join(","));
    assert.equal(results.filter((r) => r === "ERR_EVENTS_CONFLICT").length, WRITERS - 1, results.join(","));
    const stored = events.read("race");
    assert.equal(stored.length, 2);
    assert.match(stored[1]?.Actor ?? "", /^agent:writer-\d$/);
  });
});

describe("EVENTS_ERROR_CODES", () => {
  it("pins the codes, each equal to its key", () => {
    assert.deepEqual(Object.keys(EVENTS_ERROR_CODES), ["ERR_EVENTS_INVALID_EVENT", "ERR_EVENTS_CONFLICT"]);
    for (const [k, v] of Object.entries(EVENTS_ERROR_CODES)) assert.equal(k, v);
  });
});
