/*
 * What an operator sees of a person: a fixed list of tables and columns, read through each module's own export of the
 * person's rows (`AccountRows.export`, which never holds a secret), and the latest audit events without their data.
 * Never a record's contents: no resource's rows, no approval's arguments, no event's data (README "What an operator sees").
 */
import type { AccountRows } from "../db/index.ts";
import { auditStream, type EventStore } from "../events/index.ts";

/** The tables an operator's page shows, and of each the columns: nothing else of a person is read. */
export const SHOWN: Readonly<Record<string, readonly string[]>> = {
  signin_accounts: ["first_signin_at", "last_signin_at"],
  sessions: ["public_id", "method", "device", "created_at", "last_seen", "expires_at"],
  agent_tokens: ["name", "access", "created_at", "last_used_at", "revoked_at", "expires_at"],
  passkey_credentials: ["name", "created_at", "last_used_at"],
  passkey_recovery_codes: [],
  team_members: ["team", "role", "joined_at"],
};

/** How many of a person's latest audit events the page shows: 20. */
export const RECENT_EVENTS: number = 20;

/** How many rows of one table the page shows, at most: 50 (the count says how many there are). */
export const SHOWN_ROWS: number = 50;

/** One table of the person as the page shows it. */
export interface ShownTable {
  Table: string;
  Columns: readonly string[];
  /** At most `SHOWN_ROWS` rows, each the shown columns' values in order. */
  Rows: unknown[][];
  /** How many rows the table holds of the person (beyond the shown ones too, up to one export page). */
  Count: number;
}

/** An audit event as the page shows it: no data. */
export interface ShownEvent {
  Seq: number;
  Type: string;
  Actor: string;
  At: Date;
}

/** The person's shown tables, in `SHOWN`'s order, from every module's export. */
export function shownTables(rows: readonly AccountRows[], subject: string): ShownTable[] {
  const found = new Map<string, ShownTable>();
  for (const module of rows) {
    for (const pages of module.export(subject)) {
      const columns = SHOWN[pages.Table];
      if (columns === undefined) continue;
      // One export page (at most EXPORT_PAGE rows): a count past it is "at least" the number shown.
      const all = JSON.parse(`[${pages.page(undefined).text}]`) as Record<string, unknown>[];
      found.set(pages.Table, {
        Table: pages.Table,
        Columns: columns,
        Rows: all.slice(0, SHOWN_ROWS).map((row) => columns.map((c) => row[c] ?? null)),
        Count: all.length,
      });
    }
  }
  return Object.keys(SHOWN).flatMap((table) => found.get(table) ?? []);
}

/** The person's latest audit events, newest first, without their data. */
export function recentEvents(events: EventStore, subject: string): ShownEvent[] {
  return events.latest(auditStream(subject), RECENT_EVENTS).map((e) => ({ Seq: e.Seq, Type: e.Type, Actor: e.Actor, At: e.At }));
}
