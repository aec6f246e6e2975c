/*
 * `npm run bench:audit` (issue 41, item 2): what the hash chain costs. (1) `EventStore.appendAudit` on a WAL file,
 * one transaction each, BENCH_APPENDS (20 000) times over 100 streams: appends per second (run it on the commit
 * before the chain for the ratio; BENCHMARKS.md "Audit chain"). (2) `latch audit verify` spawned on a database of
 * BENCH_AUDIT_EVENTS (10⁶) chained events in 1,000 streams: events per second and the verifier's peak RSS, which
 * stays flat as the database grows (it iterates). `node dist/scripts/bench-audit.js append` runs (1) alone.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OpenDB, applySchema } from "../lib/db/index.ts";
import { EventStore, Schema } from "../lib/events/index.ts";
import * as chain from "../lib/events/chain.ts";

const APPENDS = Number(process.env["BENCH_APPENDS"] ?? 20_000);
const EVENTS = Number(process.env["BENCH_AUDIT_EVENTS"] ?? 1_000_000);
const dir = mkdtempSync(join(tmpdir(), "latch-bench-audit-"));

function appends(): void {
  const db = OpenDB(join(dir, "append.db"));
  applySchema(db, Schema);
  const events = new EventStore(db);
  const human = { String: () => "human" };
  const start = process.hrtime.bigint();
  for (let i = 0; i < APPENDS; i++)
    events.appendAudit({ Type: "bench.appended", Data: { i }, Actor: human, Subject: `p${i % 100}@example.com` });
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  console.log(`appendAudit: ${Math.round(APPENDS / seconds)} appends per second (${APPENDS}, one transaction each)`);
  db.close();
}

function verify(): void {
  const path = join(dir, "verify.db");
  const db = OpenDB(path);
  applySchema(db, Schema);
  // Seeded as the store writes them (chain.ts), without an append's checks, 1,000 streams in turn.
  const insert = db.prepare<chain.ChainedRow>(chain.INSERT_EVENT);
  const perStream = Math.max(1, Math.floor(EVENTS / 1000));
  const seed = db.transaction((first: number, last: number) => {
    for (let s = first; s < last; s++)
      for (let seq = 1, prev = chain.GENESIS; seq <= perStream; seq++) {
        const subject = `p${s}@example.com`;
        const row = chain.chained(prev, {
          stream: `audit:${subject}`,
          seq,
          type: "bench.appended",
          data: `{"i":${seq}}`,
          actor: "human",
          subject,
          at: seq,
        });
        insert.run(row);
        prev = row.hash;
      }
  });
  for (let s = 0; s < 1000; s += 100) seed(s, s + 100);
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
  const cli = join(import.meta.dirname, "audit-verify.js");
  const rss = 'data:text/javascript,process.on("exit",()=>console.error("maxrss "+process.resourceUsage().maxRSS))';
  const start = process.hrtime.bigint();
  const run = spawnSync(process.execPath, ["--import", rss, cli, "audit", "verify", path], { encoding: "utf8" });
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const kb = Number(/maxrss (\d+)/.exec(run.stderr)?.[1] ?? NaN);
  console.log(run.stdout.trim());
  console.log(
    `audit verify: ${Math.round((perStream * 1000) / seconds)} events per second (${perStream * 1000} events, exit ${run.status}, peak RSS ${Math.round(kb / 1024)} MB)`,
  );
}

try {
  appends();
  if (process.argv[2] !== "append") verify();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
