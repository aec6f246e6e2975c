/*
 * `latch audit verify <database>` (scripts/audit-verify.ts, package.json "bin"; lib/events README "Verifying"), spawned
 * on a real file: 0 and a summary when every stream verifies, beside a writer holding its write transaction open;
 * 1 naming the stream and sequence after an event's data is changed or a row deleted with SQL; 2 for a bad command
 * line or a file that is not a chained latch database. 100 000 events (the million is the bench's: `npm run bench:audit`).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { applySchema } from "../../lib/db/index.ts";
import { humanActor } from "../../lib/agent/index.ts";
import { EventStore, Schema } from "../../lib/events/index.ts";
import { GENESIS, INSERT_EVENT, chained, type ChainedRow } from "../../lib/events/chain.ts";
import { ROOT } from "../_support/docs.ts";
import { open, tempFile } from "../_support/db.ts";

const CLI = join(ROOT, "dist", "scripts", "audit-verify.js");
const EVENTS = 100_000;

function verify(...args: string[]): { status: number | null; out: string } {
  const run = spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8" });
  return { status: run.status, out: run.stdout + run.stderr };
}

describe("latch audit verify", () => {
  it(`verifies ${EVENTS} events on a live database, then names a changed event and a deleted one`, (t) => {
    const path = tempFile(t);
    const db = open(t, path);
    applySchema(db, Schema);
    // Seeded as the store writes them (chain.ts), stream by stream, without an append's checks: a quarter of the time.
    const insert = db.prepare<ChainedRow>(INSERT_EVENT);
    db.transaction(() => {
      for (let p = 0, prev = GENESIS; p < 100; p++, prev = GENESIS)
        for (let seq = 1; seq <= EVENTS / 100; seq++) {
          const subject = `p${p}@example.com`;
          const row = chained(prev, {
            stream: `audit:${subject}`,
            seq,
            type: "note.edited",
            data: `{"i":${seq}}`,
            actor: "human",
            subject,
            at: seq,
          });
          insert.run(row);
          prev = row.hash;
        }
    })();
    const events = new EventStore(db);
    // The application keeps writing: the verifier reads beside an open write transaction and does not wait for it.
    db.exec("BEGIN IMMEDIATE");
    events.appendAudit({ Type: "note.edited", Data: {}, Actor: humanActor(), Subject: "p1@example.com" });
    const live = verify("audit", "verify", path);
    db.exec("COMMIT");
    assert.deepEqual(live, { status: 0, out: `latch audit verify: ok, ${EVENTS} events in 100 streams (0 kept in place by 0 erasures)\n` });

    db.prepare(`UPDATE events SET data = '{"i":-1}' WHERE stream = 'audit:p7@example.com' AND seq = 500`).run();
    db.prepare("DELETE FROM events WHERE stream = 'audit:p9@example.com' AND seq = 3").run();
    const broken = verify("audit", "verify", path);
    assert.equal(broken.status, 1);
    assert.deepEqual(broken.out.split("\n"), [
      'broken: stream "audit:p7@example.com" sequence 500: changed: its content does not hash to its stored hash (changed after it was appended)',
      'broken: stream "audit:p9@example.com" sequence 3: missing: sequence 3 is missing (the next event is at 4)',
      `latch audit verify: 2 broken of ${EVENTS} events in 100 streams (0 kept in place by 0 erasures)`,
      "",
    ]);
  });

  it("exits 2 for a bad command line, a missing file, and a database without the chain", (t) => {
    assert.deepEqual(verify("audit"), { status: 2, out: "usage: latch audit verify <database>\n" });
    assert.equal(verify("audit", "verify", tempFile(t)).status, 2);
    const path = tempFile(t);
    applySchema(open(t, path), Schema.slice(0, 4));
    const old = verify("audit", "verify", path);
    assert.equal(old.status, 2);
    assert.match(old.out, /events\/005-chain/);
  });
});
