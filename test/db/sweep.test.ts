/*
 * lib/db's stepped sweep runner (`sweepInSteps`), the one every component's
 * `Sweep` runs its tables through: each step deletes at most SWEEP_STEP rows,
 * and the event loop answers requests between steps, however many rows
 * have expired (issue 37, issue 27).
 */
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, it } from "node:test";
import { setImmediate } from "node:timers/promises";
import { SWEEP_STEP, sweepInSteps, type DB } from "../../lib/db/index.ts";
import { open, tempFile } from "../_support/db.ts";

/**
 * Expired rows of the large test. 10⁵, not 10⁶: building a million rows takes
 * seconds, but sweeping them is 40,000 steps, each checkpointed into the
 * database file: 128 s on the two shared cores of the machine this was
 * written on (issue 37), too long for the suite. A step's bound does not
 * depend on how many rows wait behind it.
 */
const EXPIRED = 100_000;

function expiring(db: DB, expired: number, live: number): void {
  db.exec(
    "CREATE TABLE expiring (id INTEGER PRIMARY KEY, expires_at INTEGER NOT NULL); CREATE INDEX expiring_at ON expiring (expires_at);",
  );
  const insert = db.prepare<[number]>("INSERT INTO expiring (expires_at) VALUES (?)");
  db.transaction(() => {
    for (let n = 0; n < expired; n++) insert.run(n % 1000);
    for (let n = 0; n < live; n++) insert.run(2000 + n);
  })();
}

describe("sweepInSteps", () => {
  it(`deletes in steps of at most ${SWEEP_STEP} rows, by rowid along an index, until a step finds fewer`, async (t) => {
    assert.equal(SWEEP_STEP, 25);
    const db = open(t, tempFile(t));
    expiring(db, 2 * SWEEP_STEP + 1, 3);
    const step = db.prepare<[number, number]>(
      "DELETE FROM expiring WHERE rowid IN (SELECT rowid FROM expiring WHERE expires_at <= ? LIMIT ?)",
    );
    const limits: number[] = [];
    const deleted: number[] = [];
    const total = await sweepInSteps(db, {
      Rows: (limit) => {
        limits.push(limit);
        deleted.push(step.run(1000, limit).changes);
        return deleted.at(-1)!;
      },
      None: () => 0,
    });
    assert.deepEqual(total, { Rows: 2 * SWEEP_STEP + 1, None: 0 });
    assert.deepEqual(deleted, [SWEEP_STEP, SWEEP_STEP, 1]);
    assert.deepEqual(new Set(limits), new Set([SWEEP_STEP]));
    assert.equal(db.prepare("SELECT count(*) FROM expiring").pluck().get(), 3, "the live rows stay");
    const plan = db.prepare("EXPLAIN QUERY PLAN SELECT rowid FROM expiring WHERE expires_at <= ? LIMIT ?").all(1000, SWEEP_STEP);
    assert.match(JSON.stringify(plan), /USING COVERING INDEX expiring_at/);
  });

  it(`over ${EXPIRED} expired rows: every step bounded, requests answered between steps`, async (t) => {
    const db = open(t, tempFile(t));
    // Each step's checkpoint would otherwise wait on the disk (fsync) 40,000 times: the bound tested is rows, not disks.
    db.pragma("synchronous = OFF");
    expiring(db, EXPIRED, 10);
    const step = db.prepare<[number, number]>(
      "DELETE FROM expiring WHERE rowid IN (SELECT rowid FROM expiring WHERE expires_at <= ? LIMIT ?)",
    );
    const perStep: number[] = [];
    const server = createServer((_req, res) => res.end(String(perStep.length)));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    t.after(() => server.close());
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;

    let done = false;
    const sweeping = sweepInSteps(db, { Rows: (limit) => perStep[perStep.push(step.run(1000, limit).changes) - 1]! }).finally(() => {
      done = true;
    });
    // Requests one after another while the sweep runs; each answer says how many steps had run when it was made.
    const answeredAt: number[] = [];
    while (!done) {
      answeredAt.push(Number(await (await fetch(url)).text()));
      await setImmediate();
    }
    assert.deepEqual(await sweeping, { Rows: EXPIRED });
    assert.equal(perStep.length, EXPIRED / SWEEP_STEP + 1, "the last step finds none");
    assert.ok(
      perStep.every((n) => n <= SWEEP_STEP),
      "no step deleted more than SWEEP_STEP rows",
    );
    const during = answeredAt.filter((steps) => steps > 0 && steps < perStep.length);
    assert.ok(during.length >= 2 && new Set(during).size === during.length, `requests answered between steps: ${answeredAt.length}`);
    assert.equal(db.prepare("SELECT count(*) FROM expiring").pluck().get(), 10);
  });
});
