/*
 * The export: one JSON document of everything the database holds about a
 * person, written to the response piece by piece (a table at a time, the
 * events EXPORT_PAGE at a time, waiting for the socket to drain between
 * pieces), never built whole in memory.
 *
 *   { "format": "latch.account-export.v1", "subject": ..., "exported_at": ...,
 *     "tables": { "<table>": [row, ...], ... }, "events": [event, ...] }
 *
 * A latch table shows only its `exported` columns (tables.ts: no token
 * hash, secret or key material); an application's table shows every
 * column. Times are Unix milliseconds as stored; binary columns are
 * base64url. Events are the person's audit stream and every event whose
 * subject is the person, with `data` as the JSON object it is.
 */
import type { ServerResponse } from "node:http";
import type { DB } from "../db/index.ts";
import { auditStream } from "../events/index.ts";
import { writeChunk } from "../internal/index.ts";
import type { Tables } from "./tables.ts";

/** Events read per query of an export: 500. */
export const EXPORT_PAGE: number = 500;

/** The export's format name. */
export const EXPORT_FORMAT = "latch.account-export.v1";

const q = (name: string): string => `"${name}"`;

function plain(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) out[key] = Buffer.isBuffer(value) ? value.toString("base64url") : value;
  return out;
}

/** Writes `subject`'s export to `res` (status and headers already set by the caller), and ends it. */
export async function writeExport(res: ServerResponse, db: DB, tables: Tables, subject: string, now: Date): Promise<void> {
  await writeChunk(
    res,
    `{"format":${JSON.stringify(EXPORT_FORMAT)},"subject":${JSON.stringify(subject)},"exported_at":${JSON.stringify(now.toISOString())},"tables":{`,
  );
  const reads: [string, string][] = [
    ...tables.latch.map((t): [string, string] => [
      t.table,
      `SELECT ${t.exported.length === 0 ? "1 AS present" : t.exported.map(q).join(", ")} FROM ${q(t.table)} WHERE ${q(t.column)} = ?`,
    ]),
    ...tables.owned.map((t): [string, string] => [t.Table, `SELECT * FROM ${q(t.Table)} WHERE ${q(t.Column)} = ?`]),
  ];
  if (tables.rate) {
    reads.push([
      "signin_rate_events",
      "SELECT bucket, at FROM signin_rate_events WHERE bucket = 'addr:' || @s OR bucket = 'code:' || @s OR substr(bucket, 1, length(@s) + 6) = 'code:' || @s || ':'",
    ]);
  }
  let first = true;
  for (const [name, sql] of reads) {
    const rows = (db.prepare(sql).all(sql.includes("@s") ? { s: subject } : subject) as Record<string, unknown>[]).map(plain);
    if (res.destroyed) return;
    await writeChunk(res, `${first ? "" : ","}${JSON.stringify(name)}:${JSON.stringify(rows)}`);
    first = false;
  }
  await writeChunk(res, '},"events":[');
  if (tables.events) {
    const page = db.prepare(
      "SELECT * FROM events WHERE (stream = @stream OR subject = @subject) AND (stream, seq) > (@afterStream, @afterSeq) ORDER BY stream, seq LIMIT @limit",
    );
    let after: { stream: string; seq: number } = { stream: "", seq: 0 };
    let separator = "";
    for (;;) {
      const rows = page.all({
        stream: auditStream(subject),
        subject,
        afterStream: after.stream,
        afterSeq: after.seq,
        limit: EXPORT_PAGE,
      }) as {
        stream: string;
        seq: number;
        data: string;
      }[];
      if (rows.length === 0 || res.destroyed) break;
      const text = rows.map((row) => JSON.stringify({ ...row, data: JSON.parse(row.data) as unknown })).join(",");
      await writeChunk(res, separator + text);
      separator = ",";
      const last = rows[rows.length - 1];
      if (last === undefined || rows.length < EXPORT_PAGE) break;
      after = { stream: last.stream, seq: last.seq };
    }
  }
  res.end("]}\n");
}
