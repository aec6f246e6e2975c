/*
 * The hash chain (issue 41, item 2; lib/events README "The chain"): every append links to the event before it in its
 * stream by SHA-256 over the documented encoding; the verifier names the stream and sequence of a changed, deleted or
 * reordered event; the one erasure keeps every stream verifiable and shows where it happened; the schema step chains a
 * database that has events already.
 */
import { describe, it, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { applySchema, type DB } from "../../lib/db/index.ts";
import { humanActor } from "../../lib/agent/index.ts";
import { EventStore, Schema, auditStream } from "../../lib/events/index.ts";
import { verifyEvents, type Break } from "../../lib/events/verify.ts";
import { eventHash, type Hashed } from "../../lib/events/chain.ts";
import { open, tempFile } from "../_support/db.ts";

const A = "ada@example.com";
const B = "bob@example.org";
const C = "carol@example.org";

function store(t: TestContext): { db: DB; events: EventStore } {
  const db = open(t, tempFile(t));
  applySchema(db, Schema);
  let now = Date.UTC(2026, 0, 2);
  return { db, events: new EventStore(db, { Clock: { now: () => new Date((now += 1000)) } }) };
}

type Stored = Hashed & { prev_hash: Buffer };

const put = (events: EventStore, stream: string, n: number, subject = A): void => {
  for (let i = 0; i < n; i++)
    events.append({
      Stream: stream,
      Expected: events.version(stream),
      Type: "note.edited",
      Data: { i },
      Actor: humanActor(),
      Subject: subject,
    });
};

/** The breaks the verifier reports, as "stream seq problem". */
function breaks(db: DB): string[] {
  const found: Break[] = [];
  verifyEvents(db, (b) => found.push(b));
  return found.map((b) => `${b.Stream} ${b.Seq} ${b.Problem}`);
}

/** The README's encoding, written again from its text: 4-byte big-endian length and UTF-8 bytes of each field. */
function readmeHash(prev: Buffer, fields: (string | number)[]): string {
  const parts = fields.map((f) => Buffer.from(String(f), "utf8")).flatMap((b) => [Buffer.from([0, 0, b.length >> 8, b.length & 255]), b]);
  return createHash("sha256")
    .update(Buffer.concat([prev, ...parts]))
    .digest("hex");
}

describe("the event chain", () => {
  it("each event stores the hash of the one before it and its own over the README's encoding; head reads the last", (t) => {
    const { db, events } = store(t);
    assert.deepEqual(events.head("note:1"), { Seq: 0, Hash: "0".repeat(64) });
    const first = events.append({
      Stream: "note:1",
      Expected: 0,
      Type: "note.created",
      Data: { title: "é" },
      Actor: humanActor(),
      Subject: A,
    });
    put(events, "note:1", 1);
    const rows = db.prepare("SELECT hex(prev_hash) AS p, hex(hash) AS h FROM events WHERE stream = 'note:1' ORDER BY seq").all();
    const one = readmeHash(Buffer.alloc(32), ["note:1", 1, "note.created", '{"title":"é"}', "human", A, first.At.getTime()]).toUpperCase();
    const [r1, r2] = rows as { p: string; h: string }[];
    assert.deepEqual([r1?.p, r1?.h, r2?.p], ["0".repeat(64), one, one]);
    assert.deepEqual(events.head("note:1"), { Seq: 2, Hash: r2?.h.toLowerCase() });
    assert.deepEqual(breaks(db), []);
  });

  it("names the stream and sequence of a changed event, a deleted one, two swapped ones, a rehashed one", (t) => {
    const { db, events } = store(t);
    for (const s of ["a:changed", "b:deleted", "c:swapped", "d:rehashed", "e:intact"]) put(events, s, 5);
    db.prepare(`UPDATE events SET data = '{"i":99}' WHERE stream = 'a:changed' AND seq = 3`).run();
    db.prepare("DELETE FROM events WHERE stream = 'b:deleted' AND seq = 2").run();
    db.exec(`UPDATE events SET seq = 0 WHERE stream = 'c:swapped' AND seq = 2;
UPDATE events SET seq = 2 WHERE stream = 'c:swapped' AND seq = 3;
UPDATE events SET seq = 3 WHERE stream = 'c:swapped' AND seq = 0;`);
    // An editor who also rewrites the changed event's own hash breaks the link of the event after it.
    const edited = { ...(db.prepare("SELECT * FROM events WHERE stream = 'd:rehashed' AND seq = 4").get() as Stored), data: '{"i":99}' };
    db.prepare("UPDATE events SET data = ?, hash = ? WHERE stream = 'd:rehashed' AND seq = 4").run(
      edited.data,
      eventHash(edited.prev_hash, edited),
    );
    assert.deepEqual(breaks(db), ["a:changed 3 changed", "b:deleted 2 missing", "c:swapped 2 reordered", "d:rehashed 5 link"]);
  });

  it("refuses a stream or subject with a lone surrogate (it would read back as other characters and never verify)", (t) => {
    const { db, events } = store(t);
    for (const [stream, subject] of [
      ["x:\ud800", A],
      ["x:1", "a\udc00@example.com"],
    ] as const)
      assert.throws(
        () => events.append({ Stream: stream, Expected: 0, Type: "x.y", Data: {}, Actor: humanActor(), Subject: subject }),
        /lone surrogates/,
      );
    put(events, "x:🙂", 2, "🙂@example.com");
    assert.deepEqual(breaks(db), []);
  });

  it("reads the events with one iterating statement, never all at once (bounded memory)", (t) => {
    const { db, events } = store(t);
    put(events, "note:1", 3);
    const iterateOnly = new Proxy(db, {
      get: (target, key) =>
        key === "prepare"
          ? (sql: string) => {
              const statement = target.prepare(sql);
              return {
                iterate: (...args: unknown[]) => statement.iterate(...args),
                all: () => assert.fail(`all(): ${sql}`),
                get: () => assert.fail(`get(): ${sql}`),
              };
            }
          : Reflect.get(target, key),
    });
    assert.equal(verifyEvents(iterateOnly, () => assert.fail("no break")).Events, 3);
  });
});

describe("the erasure and the chain", () => {
  it("an erased event elsewhere keeps its place as a tombstone; every stream verifies; the record accounts for it", (t) => {
    const { db, events } = store(t);
    put(events, "board:1", 1, C);
    put(events, "board:1", 1, A);
    put(events, "board:1", 1, C);
    put(events, auditStream(A), 2);
    events.eraseHistory(A, [], "delete", "deleted:a");
    const row = db.prepare("SELECT type, data, subject, erased FROM events WHERE stream = 'board:1' AND seq = 2").get();
    assert.deepEqual({ ...(row as object) }, { type: "history.tombstone", data: "{}", subject: "deleted:a", erased: 1 });
    assert.equal(db.prepare("SELECT count(*) AS n FROM events WHERE stream = ?").pluck().get(auditStream(A)), 0);
    assert.deepEqual(breaks(db), []);
    // A tombstone made by hand, not by the erasure, is not accounted for.
    db.prepare("UPDATE events SET data = '{}', erased = 1 WHERE stream = 'board:1' AND seq = 3").run();
    assert.deepEqual(breaks(db), ["latch:erasures 1 erasure"]);
  });

  it("pseudonymised events verify; a later erasure that removes an earlier one's tombstones records it", (t) => {
    const { db, events } = store(t);
    put(events, "board:1", 2, A);
    put(events, "board:1", 1, C);
    put(events, auditStream(A), 2);
    events.continueHistory(A, B);
    // Someone takes the address the person left: the person's part of its audit stream stays as tombstones before theirs.
    put(events, auditStream(A), 2, A);
    events.eraseHistory(B, [], "pseudonymize", "deleted:b");
    assert.deepEqual(breaks(db), []);
    // Their deletion leaves that stream tombstones only: it goes whole, and the record says whose tombstones it took.
    events.eraseHistory(A, [], "pseudonymize", "deleted:a");
    const records = db.prepare("SELECT seq, data FROM events WHERE stream = 'latch:erasures' ORDER BY seq").all();
    assert.deepEqual(records, [
      { seq: 1, data: '{"deleted":4,"pseudonymized":2,"rewritten":5,"others":"pseudonymize"}' },
      { seq: 2, data: '{"deleted":2,"pseudonymized":0,"rewritten":0,"moved":{"1":3},"others":"pseudonymize"}' },
    ]);
    assert.deepEqual(breaks(db), []);
  });
});

describe("schema step events/005-chain", () => {
  it("chains a database's events, fills a sequence an earlier erasure left missing, and then verifies", (t) => {
    const db = open(t, tempFile(t));
    applySchema(db, Schema.slice(0, 4));
    const insert = db.prepare("INSERT INTO events VALUES (?, ?, 'note.edited', '{}', 'human', ?, 1)");
    for (let i = 0; i < 2500; i++) insert.run(`note:${i % 7}`, Math.floor(i / 7) + 1, A);
    db.prepare("DELETE FROM events WHERE stream = 'note:3' AND seq = 10").run();
    assert.deepEqual(applySchema(db, Schema), ["events/005-chain"]);
    assert.deepEqual(db.prepare("SELECT type, erased FROM events WHERE stream = 'note:3' AND seq = 10").get(), {
      type: "history.tombstone",
      erased: 1,
    });
    assert.match(
      String(db.prepare("SELECT data FROM events WHERE stream = 'latch:erasures'").pluck().get()),
      /"before_chain":true.*"rewritten":1/,
    );
    assert.equal(db.prepare("SELECT count(*) FROM events WHERE hash IS NULL").pluck().get(), 0);
    const events = new EventStore(db);
    put(events, "note:3", 1);
    assert.deepEqual(breaks(db), []);
    db.prepare("UPDATE events SET subject = 'mallory@example.com' WHERE stream = 'note:5' AND seq = 200").run();
    assert.deepEqual(breaks(db), ["note:5 200 changed"]);
  });
});
