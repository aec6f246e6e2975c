/*
 * The hash chain of a stream (README "The chain"): each event stores the hash of the event before it in its stream
 * (`prev_hash`, 32 zero bytes for sequence 1) and its own `hash`, SHA-256 over that and the event's columns in the
 * canonical encoding below, so a change, deletion or reordering of an earlier event breaks every later link. This file
 * is the one home of the encoding: the append (store.ts), the schema step that chains older events (schema.ts) and the
 * verifier (verify.ts) all call `eventHash`.
 */
import { createHash } from "node:crypto";
import type { DB } from "../db/index.ts";

/** The `prev_hash` of a stream's first event: 32 zero bytes. */
export const GENESIS: Buffer = Buffer.alloc(32);

/** The columns an event's hash covers, as stored. */
export interface Hashed {
  stream: string;
  seq: number;
  type: string;
  data: string;
  actor: string;
  subject: string;
  at: number;
}

/**
 * SHA-256 over `prev` (32 bytes) then each column in the order of `Hashed`, each as a 4-byte big-endian length and
 * its UTF-8 bytes; `seq` and `at` in decimal ASCII. Lengths make the encoding unambiguous without escaping (README).
 */
export function eventHash(prev: Uint8Array, row: Hashed): Buffer {
  const values = [row.stream, String(row.seq), row.type, row.data, row.actor, row.subject, String(row.at)];
  const lengths = values.map((value) => Buffer.byteLength(value, "utf8"));
  // The whole encoding in one buffer, hashed by one update: every append hashes, and each update crosses into C++
  // (BENCHMARKS.md (o), the chain's guard).
  const encoded = Buffer.allocUnsafe(prev.length + lengths.reduce((sum, n) => sum + 4 + n, 0));
  encoded.set(prev);
  let at = prev.length;
  for (const [i, value] of values.entries()) {
    at = encoded.writeUInt32BE(lengths[i] ?? 0, at);
    at += encoded.write(value, at, "utf8");
  }
  return createHash("sha256").update(encoded).digest();
}

/** The statement that stores an event with its links, the append's (store.ts) and the schema step's. */
export const INSERT_EVENT =
  "INSERT INTO events (stream, seq, type, data, actor, subject, at, prev_hash, hash, erased) VALUES (@stream, @seq, @type, @data, @actor, @subject, @at, @prev_hash, @hash, @erased)";

/** An event row as `INSERT_EVENT` takes it. */
export interface ChainedRow extends Hashed {
  prev_hash: Buffer;
  hash: Buffer;
  erased: number | null;
}

/** `row` with its links: `prev` is the hash of the stream's event before it (`GENESIS` for sequence 1). */
export function chained(prev: Buffer, row: Hashed, erased: number | null = null): ChainedRow {
  return { ...row, prev_hash: prev, hash: eventHash(prev, row), erased };
}

/**
 * One event as a line of JSON Lines (README "A stream as JSON Lines"): every column its hash covers as stored (`data`
 * the JSON text as a string, byte for byte, never re-serialized), `prev_hash` and `hash` in lowercase hex, `erased`.
 */
export function chainLine(row: ChainedRow): string {
  const { stream, seq, type, data, actor, subject, at, prev_hash, hash, erased } = row;
  const hex = (b: Uint8Array | null): string | null => (b === null ? null : Buffer.from(b).toString("hex"));
  return JSON.stringify({ stream, seq, type, data, actor, subject, at, prev_hash: hex(prev_hash), hash: hex(hash), erased });
}

/**
 * The type of an erased event kept in its place (history.ts): its sequence and both hashes stay, so the stream still
 * verifies; its content is gone, and `erased` names the erasure's sequence on `latch:erasures`.
 */
export const TOMBSTONE = "history.tombstone";

/** The type of an erasure's record on `latch:erasures`: the verifier checks each tombstone against it (README). */
export const ERASURE_RECORD = "history.erased";

/** The stream that records each erasure (it survives every deletion; its events name no address). */
export const ERASURES_STREAM = "latch:erasures";

/** Rows the schema step chains per read: 1000, so a database of any size is chained in bounded memory. */
export const CHAIN_BATCH = 1000;

type Stored = Hashed & { hash: Buffer | null };

/**
 * Schema step events/005's work: fills `prev_hash` and `hash` of every event, stream by stream in sequence order, in
 * keyset batches of `CHAIN_BATCH` (an open read cannot run beside the updates). A missing sequence (an erasure before
 * the chain deleted it) gets a tombstone of its own, and the tombstones one erasure record, so the result verifies.
 */
export function chainExisting(db: DB, now: number): void {
  const next = db.prepare<[string, number], Stored>(
    `SELECT stream, seq, type, data, actor, subject, at, hash FROM events WHERE (stream, seq) > (?, ?) ORDER BY stream, seq LIMIT ${CHAIN_BATCH}`,
  );
  const fill = db.prepare<[Buffer, Buffer, string, number]>("UPDATE events SET prev_hash = ?, hash = ? WHERE stream = ? AND seq = ?");
  const insert = db.prepare<ChainedRow>(INSERT_EVENT);
  const last = db.prepare<[string], { seq: number; hash: Buffer }>(
    "SELECT seq, hash FROM events WHERE stream = ? ORDER BY seq DESC LIMIT 1",
  );
  const record = (last.get(ERASURES_STREAM)?.seq ?? 0) + 1;
  let gaps = 0;
  let prev = GENESIS;
  let key: [string, number] = ["", 0];
  for (let rows = next.all(...key); rows.length > 0; rows = next.all(...key)) {
    for (const row of rows) {
      if (row.stream !== key[0]) [prev, key] = [GENESIS, [row.stream, 0]];
      for (let seq = key[1] + 1; seq < row.seq; seq++, gaps++) {
        const tombstone = chained(prev, { ...row, seq, type: TOMBSTONE, data: "{}", actor: "human", subject: "erased" }, record);
        insert.run(tombstone);
        prev = tombstone.hash;
      }
      key = [row.stream, row.seq];
      const hash = row.hash ?? eventHash(prev, row);
      if (row.hash === null) fill.run(prev, hash, row.stream, row.seq);
      prev = hash;
    }
  }
  if (gaps === 0) return;
  const data = JSON.stringify({ before_chain: true, deleted: gaps, pseudonymized: 0, rewritten: gaps });
  const row = { stream: ERASURES_STREAM, seq: record, type: ERASURE_RECORD, data, actor: "human", subject: "erased", at: now };
  insert.run(chained(last.get(ERASURES_STREAM)?.hash ?? GENESIS, row));
}
