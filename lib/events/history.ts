/*
 * A person's history across changes of address, without rewriting any event: a change appends `history.continues` to
 * the old audit stream, naming the new one, and `history.continued_from` to the new, naming the old and that event's
 * sequence; a reader follows the chain back (README, "A person's history"). The one path that deletes or updates events
 * is `eraseHistory`, for an account's deletion (GDPR Art. 17; lib/account README, "Deletion"), and it records itself.
 */
import type { DB } from "../db/index.ts";
import { keysetPages, type RowPages } from "../db/index.ts";
import { AUDIT_STREAM_PREFIX } from "./event.ts";

/** The type of the event on a person's old audit stream that names the new one. */
export const HISTORY_CONTINUES = "history.continues";
/** The type of the first event of a person's new audit stream: it names the old stream and the sequence of its `history.continues`. */
export const HISTORY_CONTINUED_FROM = "history.continued_from";
/** The type of the record of an erasure, on ERASURES_STREAM. */
export const HISTORY_ERASED = "history.erased";
/** The stream that records each erasure (it survives every deletion; its events name no address). */
export const ERASURES_STREAM = "latch:erasures";
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
  const shape = (row: Record<string, unknown>): unknown => ({ ...row, data: JSON.parse(String(row["data"])) as unknown });
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

/**
 * The erasure (see the header): inside the caller's transaction, deletes the person's audit history and `streams`
 * (their records' streams), and pseudonymises (`alias`) or deletes their events elsewhere.
 */
export function eraseHistory(
  db: DB,
  subject: string,
  streams: readonly string[],
  others: OtherEvents,
  alias: string,
): { deleted: number; pseudonymized: number } {
  const parts = historyOf(db, subject);
  const own = partCondition(parts);
  let deleted = db.prepare(`DELETE FROM events WHERE ${own.where}`).run(own.params).changes;
  const drop = db.prepare("DELETE FROM events WHERE stream = ?");
  for (const stream of streams) deleted += drop.run(stream).changes;
  const elsewhere = elsewhereCondition(parts);
  if (others === "delete")
    return { deleted: deleted + db.prepare(`DELETE FROM events WHERE ${elsewhere.where}`).run(elsewhere.params).changes, pseudonymized: 0 };
  const renamed = db.prepare(`UPDATE events SET subject = @alias WHERE ${elsewhere.where}`).run({ ...elsewhere.params, alias }).changes;
  return { deleted, pseudonymized: renamed };
}
