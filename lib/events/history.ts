/*
 * A person's history across changes of address, without rewriting any event: a change appends `history.continues` to
 * the old audit stream, naming the new one, and `history.continued_from` to the new, naming the old and that event's
 * sequence; a reader follows the chain back (README, "A person's history"). The one path that deletes or updates events
 * is `eraseHistory`, for an account's deletion (GDPR Art. 17; lib/account README, "Deletion"), and it records itself.
 */
import type { DB } from "../db/index.ts";
import { keysetPages, type RowPages } from "../db/index.ts";
import { AUDIT_STREAM_PREFIX } from "./event.ts";
import { ERASURE_RECORD, ERASURES_STREAM, TOMBSTONE } from "./chain.ts";

export { ERASURES_STREAM };

/** The type of the event on a person's old audit stream that names the new one. */
export const HISTORY_CONTINUES = "history.continues";
/** The type of the first event of a person's new audit stream: it names the old stream and the sequence of its `history.continues`. */
export const HISTORY_CONTINUED_FROM = "history.continued_from";
/** The type of the record of an erasure, on ERASURES_STREAM. */
export const HISTORY_ERASED: string = ERASURE_RECORD;
/** The prefix of the types only this file appends: `append` and `appendAudit` refuse them, so no one can forge a link to another's history. */
export const HISTORY_TYPE_PREFIX = "history.";

/** Audit-stream parts a history follows, at most: 32 (16 changes of address and their undos). */
export const MAX_HISTORY_PARTS: number = 32;

/** A stretch of one audit stream that belongs to a person's history. */
export interface HistoryPart {
  /** The audit stream. */
  readonly Stream: string;
  /** The address it belonged to. */
  readonly Subject: string;
  /** The part's events have a sequence above `After` and, when `Upto` is set, at most `Upto`. */
  readonly After: number;
  readonly Upto: number | undefined;
  /** When the address became the person's (0: from the start) and, when set, when they left it (Unix ms). */
  readonly Since: number;
  readonly Until: number | undefined;
}

interface Marker {
  seq: number;
  type: string;
  data: string;
  at: number;
}

/** The person's history: the parts of the chain of audit streams that end at `auditStream(subject)`, oldest first. */
export function historyOf(db: DB, subject: string): HistoryPart[] {
  // The partial index of schema step events/003 holds only these two types.
  const markers = db.prepare<[string], Marker>(
    `SELECT seq, type, data, at FROM events WHERE stream = ? AND type IN ('${HISTORY_CONTINUES}', '${HISTORY_CONTINUED_FROM}') ORDER BY seq`,
  );
  const parts: HistoryPart[] = [];
  const seen = new Set<string>();
  const visit = (stream: string, upto: number | undefined): void => {
    if (seen.has(`${upto ?? ""}:${stream}`) || seen.size >= MAX_HISTORY_PARTS) return;
    seen.add(`${upto ?? ""}:${stream}`);
    const all = markers.all(stream);
    const left = all.filter((m) => m.type === HISTORY_CONTINUES && (upto === undefined || m.seq < upto)).at(-1);
    const end = upto === undefined ? undefined : all.find((m) => m.seq === upto);
    const after = left?.seq ?? 0;
    for (const m of all) {
      if (m.type !== HISTORY_CONTINUED_FROM || m.seq <= after || (upto !== undefined && m.seq > upto)) continue;
      const from = JSON.parse(m.data) as { stream?: unknown; seq?: unknown };
      if (typeof from.stream === "string" && typeof from.seq === "number") visit(from.stream, from.seq);
    }
    const owner = stream.slice(AUDIT_STREAM_PREFIX.length);
    parts.push({ Stream: stream, Subject: owner, After: after, Upto: upto, Since: left?.at ?? 0, Until: end?.at });
  };
  visit(AUDIT_STREAM_PREFIX + subject, undefined);
  return parts;
}

/** A condition on events: all of it, each of its terms (one bounded range each), and their parameters. */
interface Condition {
  where: string;
  terms: string[];
  params: Record<string, unknown>;
}

/** The SQL condition (named parameters `@s<i>`, `@a<i>`, `@u<i>`) of a part's own events, and the parameters. */
function partCondition(parts: readonly HistoryPart[]): Condition {
  const params: Record<string, unknown> = {};
  const terms = parts.map((p, i) => {
    Object.assign(params, { [`s${i}`]: p.Stream, [`a${i}`]: p.After, [`u${i}`]: p.Upto ?? null });
    return `(stream = @s${i} AND seq > @a${i} AND (@u${i} IS NULL OR seq <= @u${i}))`;
  });
  return { where: terms.join(" OR ") || "0", terms, params };
}

/** The condition of the person's events in other streams: their address as subject while it was theirs. */
function elsewhereCondition(parts: readonly HistoryPart[]): Condition {
  const params: Record<string, unknown> = {};
  const terms = parts.map((p, i) => {
    Object.assign(params, { [`p${i}`]: p.Subject, [`f${i}`]: p.Since, [`t${i}`]: p.Until ?? null });
    return `(subject = @p${i} AND at >= @f${i} AND (@t${i} IS NULL OR at <= @t${i}))`;
  });
  const other = `substr(stream, 1, ${AUDIT_STREAM_PREFIX.length}) <> '${AUDIT_STREAM_PREFIX}'`;
  return { where: `${other} AND (${terms.join(" OR ") || "0"})`, terms: terms.map((t) => `${other} AND ${t}`), params };
}

/**
 * The person's events for the export, in pages: each part of their history along the stream's primary key, then their
 * events in other streams along the subject index, one bounded range at a time (one OR over them all read the whole
 * table for every page: 75 ms a page, seconds for an export).
 */
export function historyPages(db: DB, subject: string): RowPages {
  // The links as hex, the form README "The chain" gives them in, so an outside tool can check the export.
  const hex = (v: unknown): string | null => (v instanceof Uint8Array ? Buffer.from(v).toString("hex") : null);
  const shape = (row: Record<string, unknown>): unknown => ({
    ...row,
    data: JSON.parse(String(row["data"])) as unknown,
    prev_hash: hex(row["prev_hash"]),
    hash: hex(row["hash"]),
  });
  const parts = historyOf(db, subject);
  const reads = [partCondition(parts), elsewhereCondition(parts)].flatMap(({ terms, params }) =>
    terms.map((where) => keysetPages(db, { table: "events", columns: "*", where, params, shape })),
  );
  return {
    Table: "events",
    // A key is the read's index, then that read's own key (none at its start).
    page(key) {
      for (let i = key === undefined ? 0 : Number(key[0]), at = key?.slice(1); i < reads.length; i++, at = undefined) {
        const page = reads[i]?.page(at !== undefined && at.length > 0 ? at : undefined) ?? { text: "", next: undefined };
        if (page.next !== undefined) return { text: page.text, next: [i, ...page.next] };
        if (page.text !== "") return { text: page.text, next: i + 1 < reads.length ? [i + 1] : undefined };
      }
      return { text: "", next: undefined };
    },
  };
}

/** What an erasure does with the person's events in other people's streams. */
export type OtherEvents = "pseudonymize" | "delete";

/** What an erasure did, recorded on `ERASURES_STREAM` (README "The erasure and the chain"). */
export interface Erased {
  /** Events whose content it erased. */
  deleted: number;
  /** Events elsewhere it gave the pseudonym. */
  pseudonymized: number;
  /** Rows it left marked with its sequence: tombstones in streams that stay, and the pseudonymised events. */
  rewritten: number;
  /** Rows marked by earlier erasures (by their sequence) that this one removed or marked again; absent when none. */
  moved?: Record<string, number>;
}

/**
 * The erasure (see the header), inside the caller's transaction, as `record`, the sequence its record will take on
 * `ERASURES_STREAM`: the person's audit history, `streams` (their records' streams) and, with `others` "delete", their
 * events elsewhere become tombstones in place (sequence and hashes kept, content gone, `erased` = `record`), so the
 * streams that stay still verify; a stream left with tombstones only is removed whole. With "pseudonymize", their
 * events elsewhere keep their content but take `alias` as subject, marked the same way.
 */
export function eraseHistory(
  db: DB,
  subject: string,
  streams: readonly string[],
  others: OtherEvents,
  alias: string,
  record: number,
): Erased {
  const marks = db.prepare<[], { erased: number; n: number }>(
    "SELECT erased, count(*) AS n FROM events INDEXED BY events_erased WHERE erased IS NOT NULL GROUP BY erased",
  );
  const before = marks.all();
  const parts = historyOf(db, subject);
  const own = partCondition(parts);
  const elsewhere = elsewhereCondition(parts);
  const touched = new Set([...parts.map((p) => p.Stream), ...streams]);
  if (others === "delete")
    for (const s of db
      .prepare<[object], string>(`SELECT DISTINCT stream FROM events WHERE ${elsewhere.where}`)
      .pluck()
      .all(elsewhere.params))
      touched.add(s);
  const tombstone = (where: string, params: object): number =>
    db
      .prepare(`UPDATE events SET type = '${TOMBSTONE}', data = '{}', actor = 'human', subject = @alias, erased = @record WHERE ${where}`)
      .run({ ...params, alias, record }).changes;
  let deleted = tombstone(`(${own.where}) AND type <> '${TOMBSTONE}'`, own.params);
  for (const stream of streams) deleted += tombstone(`stream = @stream AND type <> '${TOMBSTONE}'`, { stream });
  let pseudonymized = 0;
  if (others === "delete") deleted += tombstone(elsewhere.where, elsewhere.params);
  else
    pseudonymized = db
      .prepare(`UPDATE events SET subject = @alias, erased = @record WHERE ${elsewhere.where}`)
      .run({ ...elsewhere.params, alias, record }).changes;
  // A stream of tombstones only keeps nothing worth its name (an address, for an audit stream): it goes whole.
  const drop = db.prepare(
    `DELETE FROM events WHERE stream = @stream AND NOT EXISTS (SELECT 1 FROM events WHERE stream = @stream AND type <> '${TOMBSTONE}')`,
  );
  for (const stream of touched) drop.run({ stream });
  const after = new Map(marks.all().map((m) => [m.erased, m.n]));
  const moved = Object.fromEntries(
    before.filter((m) => m.n !== (after.get(m.erased) ?? 0)).map((m) => [String(m.erased), m.n - (after.get(m.erased) ?? 0)]),
  );
  const erased: Erased = { deleted, pseudonymized, rewritten: after.get(record) ?? 0 };
  return Object.keys(moved).length > 0 ? { ...erased, moved } : erased;
}
