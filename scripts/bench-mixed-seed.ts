/*
 * The database of the mixed scenario (scripts/bench-mixed.ts): the demo's schema seeded with PEOPLE people, RECORDS
 * expenses (RECORDS / PEOPLE each, with their search rows) and EVENTS audit events (EVENTS / PEOPLE in each person's
 * audit stream, chained as `EventStore.appendAudit` chains them, so `latch audit verify` passes), each person with a
 * session, a read token, a write token and a standing approval of `expenses_create` for it (20 calls: spent by the
 * write calls, so each run starts from a copy). Seeded once in this process inside SQLite (INSERT … SELECT over a
 * recursive CTE, a transaction per million rows; the chain's hashes by a function SQLite calls per row), kept under
 * BENCH_MIXED_CACHE (default /tmp/latch-bench-mixed) by size and schema (the names of the demo's schema steps), so a
 * rerun copies the file instead of seeding again. Tokens are derived from the person's number (`tokenOf`): the client
 * computes them without reading the database.
 */
import { createHash, createHmac } from "node:crypto";
import { copyFileSync, constants, existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { OpenDB, applySchema, type DB } from "../lib/db/index.ts";
import { eventHash, GENESIS } from "../lib/events/chain.ts";
import type { Database } from "better-sqlite3";
import { HashToken } from "../lib/session/index.ts";
import { schema } from "../examples/demo/app.ts";
import { seedExpenses, seedRange, timed } from "./bench-scale-kit.ts";

/** The sizes: people, records, events. */
export interface Sizes {
  people: number;
  records: number;
  events: number;
}

/** The issue's sizes (10⁴ people, 10⁶ records, 10⁷ events) and `--small`'s tenth to hundredth of them. */
export const FULL: Sizes = { people: 10_000, records: 1_000_000, events: 10_000_000 };
export const SMALL: Sizes = { people: 1_000, records: 100_000, events: 1_000_000 };

/** Person `n`'s address. */
export const personOf = (n: number): string => `person${n}@example.com`;

/** Person `n`'s token of `kind` (a session cookie's, a read or a write agent token): 43 base64url characters as NewToken's. */
export function tokenOf(kind: "session" | "read" | "write", n: number): string {
  return createHmac("sha256", "latch-bench-mixed: not a secret").update(`${kind}:${n}`).digest("base64url");
}

/** The tool the write tokens' standing approvals cover. */
export const WRITE_TOOL = "expenses_create";

/** Members of each seeded team: person n is in team n / TEAM_SIZE, its first person the owner. */
export const TEAM_SIZE = 100;

/** A team id as lib/teams makes them (12 base64url characters), numbered. */
export const teamOf = (n: number): string => `benchteam${String(n).padStart(3, "0")}`;

/** Expired sessions and sign-in links a person, for the sweep to delete while the scenario runs. */
const EXPIRED_EACH = 10;

/** Hours the seeded sessions, tokens and standing approvals live from `refresh`. */
const LIFETIME_MS = 8 * 60 * 60 * 1000;

/** The cached database of `sizes`, seeded on first use; returns its path. */
export async function seeded(sizes: Sizes): Promise<string> {
  const dir = process.env["BENCH_MIXED_CACHE"] ?? "/tmp/latch-bench-mixed";
  mkdirSync(dir, { recursive: true });
  const version = createHash("sha256")
    .update(schema.map((s) => s.Name).join("\n"))
    .digest("hex")
    .slice(0, 12);
  const path = join(dir, `mixed-${sizes.people}-${sizes.records}-${sizes.events}-${version}.db`);
  if (existsSync(path)) return path;
  const building = `${path}.building`;
  rmSync(building, { force: true });
  const db = OpenDB(building);
  applySchema(db, schema);
  const now = Date.now();
  await timed(`${sizes.people} people: sessions, read and write tokens, standing approvals`, () => seedPeople(db, sizes.people, now));
  const owners = Array.from({ length: sizes.people }, (_, n) => personOf(n));
  const each = Math.max(1, Math.floor(sizes.records / sizes.people));
  await timed(`${sizes.records} expenses and their search rows`, () =>
    seedExpenses(db, each * sizes.people, `'person' || (i / ${each}) || '@example.com'`, [], owners, now, 50),
  );
  await timed(`${sizes.events} chained audit events`, () => seedEvents(db, sizes, now));
  await timed(`${sizes.people / TEAM_SIZE} teams of ${TEAM_SIZE}, ${EXPIRED_EACH * sizes.people} expired sessions and sign-in links`, () =>
    seedTeamsAndLapsed(db, sizes.people, now),
  );
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
  renameSync(building, path);
  return path;
}

/** Copies the cached database `from` to `to` (a clone where the file system can) and renews its lifetimes. */
export function runCopy(from: string, to: string): void {
  copyFileSync(from, to, constants.COPYFILE_FICLONE);
  const db = OpenDB(to);
  refresh(db, Date.now());
  db.close();
}

function refresh(db: DB, now: number): void {
  db.transaction(() => {
    db.prepare("UPDATE sessions SET last_seen = ?, auth_time = ?, expires_at = ? WHERE public_id LIKE 'bench-session-%'").run(
      now,
      now,
      now + LIFETIME_MS,
    );
    db.prepare("UPDATE agent_tokens SET expires_at = ?").run(now + LIFETIME_MS);
    db.prepare("UPDATE agent_standing_approvals SET created_at = ?, expires_at = ?").run(now, now + LIFETIME_MS);
  })();
}

function seedPeople(db: DB, people: number, now: number): void {
  const session = db.prepare(
    "INSERT INTO sessions (token_hash, subject, method, auth_time, created_at, last_seen, expires_at, public_id, device) VALUES (?, ?, 'magiclink', ?, ?, ?, ?, ?, '')",
  );
  const token = db.prepare(
    "INSERT INTO agent_tokens (id, token_hash, subject, name, access, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
  );
  // A standing approval as `StandingApprovals.create` writes it for "any record, any fields": the bench's write calls.
  const standing = db.prepare(
    `INSERT INTO agent_standing_approvals (id, subject, token_id, tool, context, record, fields, args, remaining, created_at, expires_at)
     VALUES (?, ?, ?, ?, '', NULL, NULL, '{}', 20, ?, ?)`,
  );
  db.transaction(() => {
    for (let n = 0; n < people; n++) {
      const who = personOf(n);
      session.run(HashToken(tokenOf("session", n)), who, now, now, now, now + LIFETIME_MS, `bench-session-${n}`);
      for (const access of ["read", "write"] as const) {
        token.run(`bench-${access}-${n}`, HashToken(tokenOf(access, n)), who, `bench-${access}`, access, now, now + LIFETIME_MS);
      }
      standing.run(`bench-standing-${n}`, who, `bench-write-${n}`, WRITE_TOOL, now, now + LIFETIME_MS);
    }
  })();
}

/**
 * Inserts `sizes.events` events, `sizes.events / sizes.people` in each person's audit stream, in the primary key's
 * order; the function `bench_link` (this process, per row, in order) returns the row's `prev_hash` and `hash`
 * together, as `chained` computes them. A transaction per million rows.
 */
function seedEvents(db: DB, sizes: Sizes, now: number): void {
  const each = Math.max(1, Math.floor(sizes.events / sizes.people));
  let prev: Buffer = GENESIS;
  (db as unknown as Database).function("bench_link", { deterministic: false, varargs: true }, (...args: unknown[]) => {
    const [stream, seq, type, data, actor, subject, at] = args;
    if (seq === 1) prev = GENESIS;
    const hash = eventHash(prev, {
      stream: String(stream),
      seq: Number(seq),
      type: String(type),
      data: String(data),
      actor: String(actor),
      subject: String(subject),
      at: Number(at),
    });
    const both = Buffer.concat([prev, hash]);
    prev = hash;
    return both;
  });
  const step = each * Math.max(1, Math.floor(1_000_000 / each));
  const total = each * sizes.people;
  for (let from = 0; from < total; from += step) {
    seedRange(
      db,
      Math.min(step, total - from),
      `, r AS MATERIALIZED (
           SELECT 'audit:person' || ((${from} + i) / ${each}) || '@example.com' AS stream, (${from} + i) % ${each} + 1 AS seq,
                  'auth.signed_in' AS type, '{"method":"magiclink"}' AS data,
                  CASE WHEN i % 5 = 0 THEN 'agent:bot' ELSE 'human' END AS actor,
                  'person' || ((${from} + i) / ${each}) || '@example.com' AS subject, ? - ${each} + (${from} + i) % ${each} AS at FROM n),
         l AS MATERIALIZED (SELECT *, bench_link(stream, seq, type, data, actor, subject, at) AS link FROM r)
         INSERT INTO events (stream, seq, type, data, actor, subject, at, prev_hash, hash)
         SELECT stream, seq, type, data, actor, subject, at, substr(link, 1, 32), substr(link, 33, 32) FROM l`,
      now,
    );
  }
}

/** Teams of TEAM_SIZE people; EXPIRED_EACH lapsed sessions and sign-in links a person (what a sweep finds after a day). */
function seedTeamsAndLapsed(db: DB, people: number, now: number): void {
  const team = db.prepare("INSERT INTO teams (id, name, created_at) VALUES (?, ?, ?)");
  const member = db.prepare("INSERT INTO team_members (team, subject, role, joined_at) VALUES (?, ?, ?, ?)");
  db.transaction(() => {
    for (let n = 0; n < people; n++) {
      const id = teamOf(Math.floor(n / TEAM_SIZE));
      if (n % TEAM_SIZE === 0) team.run(id, `Bench team ${id}`, now);
      member.run(id, personOf(n), n % TEAM_SIZE === 0 ? "owner" : "member", now);
    }
  })();
  const lapsed = EXPIRED_EACH * people;
  seedRange(
    db,
    lapsed,
    `INSERT INTO sessions (token_hash, subject, method, auth_time, created_at, last_seen, expires_at, public_id, device)
     SELECT lower(hex(randomblob(32))), 'person' || (i % ${people}) || '@example.com', 'magiclink', ?, ?, ?, ?, 'lapsed-' || i, '' FROM n`,
    now - 2 * LIFETIME_MS,
    now - 2 * LIFETIME_MS,
    now - 2 * LIFETIME_MS,
    now - LIFETIME_MS,
  );
  seedRange(
    db,
    lapsed,
    `INSERT INTO signin_links (token_hash, purpose, address, expires_at)
     SELECT lower(hex(randomblob(32))), 'signin', 'person' || (i % ${people}) || '@example.com', ? FROM n`,
    now - LIFETIME_MS,
  );
}
