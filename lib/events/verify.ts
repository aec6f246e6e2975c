/*
 * The verifier (README "Verifying"): walks every event in (stream, seq) order with one iterating read, so memory stays
 * bounded by the number of erasures, not of events, and names the first broken link of each stream: a missing
 * sequence, an event whose content no longer hashes to its stored hash, a link that does not match the event before,
 * an event moved to another sequence. Tombstones (history.ts) are checked against their erasure's record.
 */
import type { DB } from "../db/index.ts";
import { ERASURE_RECORD, ERASURES_STREAM, GENESIS, eventHash, type Hashed } from "./chain.ts";

/** What is wrong at a broken link. */
export type Problem = "missing" | "changed" | "link" | "reordered" | "unchained" | "erasure";

/** The first broken link of a stream (or an erasure whose record does not account for its tombstones). */
export interface Break {
  readonly Stream: string;
  readonly Seq: number;
  readonly Problem: Problem;
  readonly Detail: string;
}

/** What a verification walked. */
export interface Verified {
  readonly Streams: number;
  readonly Events: number;
  /** Rows kept in place by an erasure (tombstones and pseudonymised events), and the erasures recorded. */
  readonly Erased: number;
  readonly Erasures: number;
  readonly Broken: number;
}

interface Stored extends Hashed {
  prev_hash: Buffer | null;
  hash: Buffer | null;
  erased: number | null;
}

/** One stream's walk: the sequence expected next, the hash it must link to, and a suspected move awaiting its partner. */
interface Walk {
  stream: string;
  next: number;
  prev: Buffer;
  broken: boolean;
  moved: { seq: number; after: Buffer } | undefined;
}

/** Verifies every stream of `db` (read it from a read-only handle: the walk takes no lock a writer waits on); calls `onBreak` for each break. */
export function verifyEvents(db: DB, onBreak: (b: Break) => void): Verified {
  const rows = db
    .prepare<[], Stored>("SELECT stream, seq, type, data, actor, subject, at, prev_hash, hash, erased FROM events ORDER BY stream, seq")
    .iterate();
  const marked = new Map<number, number>();
  const accounted = new Map<number, number>();
  let walk: Walk | undefined;
  let streams = 0;
  let events = 0;
  let erased = 0;
  let broken = 0;
  const report = (w: { stream: string; broken: boolean }, seq: number, problem: Problem, detail: string): void => {
    broken++;
    w.broken = true;
    onBreak(Object.freeze({ Stream: w.stream, Seq: seq, Problem: problem, Detail: detail }));
  };
  const finish = (w: Walk | undefined): void => {
    if (w?.moved !== undefined) report(w, w.moved.seq, "changed", "its content and its link differ from what was appended there");
  };
  for (const row of rows) {
    events++;
    if (row.erased !== null) {
      erased++;
      marked.set(row.erased, (marked.get(row.erased) ?? 0) + 1);
    }
    if (row.stream === ERASURES_STREAM && row.type === ERASURE_RECORD) account(accounted, row.seq, row.data);
    if (walk?.stream !== row.stream) {
      finish(walk);
      streams++;
      walk = { stream: row.stream, next: 1, prev: GENESIS, broken: false, moved: undefined };
    }
    if (walk.broken) {
      // The event a moved one was appended after has turned up later in the stream: the two were reordered.
      if (walk.moved !== undefined && row.hash?.equals(walk.moved.after) === true) {
        report(walk, walk.moved.seq, "reordered", `it was appended after the event now at sequence ${row.seq}`);
        walk.moved = undefined;
      }
      continue;
    }
    check(walk, row, report);
  }
  finish(walk);
  for (const seq of new Set([...marked.keys(), ...accounted.keys()])) {
    const [found, recorded] = [marked.get(seq) ?? 0, accounted.get(seq)];
    if (found === recorded) continue;
    const detail =
      recorded === undefined
        ? `${found} events are marked erased by an erasure with no record`
        : `${found} events are marked erased by it; its record accounts for ${recorded}`;
    report({ stream: ERASURES_STREAM, broken: false }, seq, "erasure", detail);
  }
  return Object.freeze({ Streams: streams, Events: events, Erased: erased, Erasures: [...accounted.keys()].length, Broken: broken });
}

/** Checks one row against its stream's walk, advancing it or reporting the break. */
function check(walk: Walk, row: Stored, report: (w: Walk, seq: number, problem: Problem, detail: string) => void): void {
  // Each check below reads one link of the chain (README "The chain"); the first that fails is the stream's break.
  if (row.seq !== walk.next)
    return report(walk, walk.next, "missing", `sequence ${walk.next} is missing (the next event is at ${row.seq})`);
  if (row.hash === null || row.prev_hash === null)
    return report(walk, row.seq, "unchained", "it has no hash (written around the event store)");
  const linked = row.prev_hash.equals(walk.prev);
  // A tombstone's content is gone by design (its erasure accounts for it); its links still hold.
  const intact = row.erased !== null || eventHash(row.prev_hash, row).equals(row.hash);
  if (intact && !linked)
    return report(
      walk,
      row.seq,
      "link",
      `its prev_hash is not the hash of sequence ${row.seq - 1} (an event before it was changed or replaced)`,
    );
  if (!intact && linked)
    return report(walk, row.seq, "changed", "its content does not hash to its stored hash (changed after it was appended)");
  if (!intact) {
    walk.broken = true;
    walk.moved = { seq: row.seq, after: row.prev_hash };
    return;
  }
  walk.next++;
  walk.prev = row.hash;
}

/** Adds an erasure record's accounting: the rows it marked, less those later erasures took over or removed. */
function account(accounted: Map<number, number>, seq: number, data: string): void {
  let record: { rewritten?: unknown; moved?: unknown };
  try {
    record = JSON.parse(data) as typeof record;
  } catch {
    return; // a record changed into something else breaks its own link; it accounts for nothing
  }
  if (typeof record !== "object" || record === null) return;
  accounted.set(seq, (accounted.get(seq) ?? 0) + (typeof record.rewritten === "number" ? record.rewritten : 0));
  if (typeof record.moved !== "object" || record.moved === null) return;
  for (const [of, n] of Object.entries(record.moved))
    if (typeof n === "number") accounted.set(Number(of), (accounted.get(Number(of)) ?? 0) - n);
}
