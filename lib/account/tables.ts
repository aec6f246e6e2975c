/*
 * Where a person's address lives: the one list of latch's tables that hold
 * it, and the one hook an application's own tables join (`OwnedTable`,
 * `Config.Tables`). A change of address moves every row of both, an export
 * reads them, a deletion deletes them. Two more homes are derived from the
 * address and handled by rule, not by column: the audit stream
 * (`auditStream(subject)` of lib/events, renamed) and the sign-in rate
 * buckets (`addr:<address>`, `code:<address>[:<browser>]`, re-keyed).
 *
 * A table of the list that the application's schema does not create (an
 * application without agents has no `agent_tokens`) is skipped. OAuth
 * grants (lib/oauth) name agent tokens by id only, so they follow the
 * tokens without a row of their own here.
 */
import type { DB } from "../db/index.ts";
import { AccountError } from "./errors.ts";

/**
 * A table of the application's own records that belong to one person:
 * `Column` holds their address (a user-scoped resource's `owner`). Its
 * rows move with a change of address, appear in an export and are deleted
 * with the account.
 */
export interface OwnedTable {
  /** The table's name. */
  Table: string;
  /** The column holding the person's address. */
  Column: string;
  /**
   * Each row has an event stream `<Table>:<id>` (a Mergeable resource of
   * lib/manifest): its events are exported and deleted with the row.
   */
  Streams?: boolean;
}

/** One of latch's tables that hold a person's address. */
export interface LatchTable {
  table: string;
  column: string;
  /** "move": rows follow the address; "drop": rows are pending things of the old address, deleted by a move. */
  onMove: "move" | "drop";
  /** Rows a move deletes rather than moves (a WHERE condition), when some cannot follow. */
  dropOnMove?: string;
  /** Columns an export shows: never a secret, a token's hash or key material. */
  exported: readonly string[];
  /** Rows here make the address an account (a change of address to it is refused). */
  account: boolean;
  /**
   * How an undo of a change ends what the row lets act for the person
   * (account README, "Undo"): an SQL `SET` list and the condition of a row
   * still in force; `@now` is the time of the undo. Sessions end through
   * `Sessions.RevokeAll`.
   */
  endOnUndo?: { set: string; live: string };
}

/**
 * latch's tables that hold a person's address, in deletion order
 * (approvals before the tokens they reference).
 */
export const LATCH_TABLES: readonly LatchTable[] = [
  {
    table: "sessions",
    column: "subject",
    onMove: "move",
    exported: ["public_id", "method", "auth_time", "created_at", "last_seen", "expires_at", "device"],
    account: true,
  },
  {
    table: "signin_accounts",
    column: "address",
    onMove: "move",
    exported: ["address", "first_signin_at", "last_signin_at"],
    account: true,
  },
  { table: "signin_links", column: "address", onMove: "drop", exported: ["purpose", "expires_at"], account: false },
  {
    table: "passkey_credentials",
    column: "subject",
    onMove: "move",
    exported: ["id", "name", "created_at", "last_used_at"],
    account: true,
  },
  { table: "passkey_pending", column: "subject", onMove: "drop", exported: ["first_method", "expires_at"], account: false },
  // Codes of a set from before passkey/007 are salted with the old address and cannot follow it.
  { table: "passkey_recovery_codes", column: "subject", onMove: "move", dropOnMove: "salt = ''", exported: ["created_at"], account: true },
  { table: "passkey_user_handles", column: "subject", onMove: "move", exported: [], account: true },
  {
    table: "agent_approvals",
    column: "subject",
    onMove: "move",
    exported: ["id", "token_id", "tool", "args", "status", "created_at", "expires_at"],
    account: true,
    // A request not yet answered, or an approval not yet spent, by a token the undo revokes.
    endOnUndo: { set: "status = 'declined', expires_at = @now", live: "status IN ('pending', 'approved')" },
  },
  {
    table: "agent_tokens",
    column: "subject",
    onMove: "move",
    exported: ["id", "name", "access", "created_at", "last_used_at", "revoked_at", "expires_at"],
    account: true,
    // Pasted tokens and OAuth grants alike: a grant's access and refresh tokens stop with it (lib/agent, lib/oauth).
    endOnUndo: { set: "revoked_at = @now", live: "revoked_at IS NULL" },
  },
  // Security notices (lib/signin): queued ones go to the address the account has when they are sent; known devices follow the person.
  { table: "signin_notices", column: "subject", onMove: "move", exported: ["kind", "at", "device"], account: false },
  {
    table: "signin_notice_devices",
    column: "subject",
    onMove: "move",
    exported: ["first_seen", "last_seen", "locale"],
    account: false,
  },
  { table: "account_address_changes", column: "subject", onMove: "drop", exported: ["new_address", "expires_at"], account: false },
  { table: "account_reversals", column: "subject", onMove: "move", exported: ["expires_at"], account: false },
];

/**
 * latch's tables that name a person's agent token (an OAuth grant's access
 * tokens, codes and refresh tokens) by id only: they follow the token on a
 * move, hold nothing an export shows (hashes of secrets), and are deleted
 * before the tokens they reference.
 */
export const GRANT_TABLES: readonly string[] = ["agent_access_tokens", "oauth_codes", "oauth_refresh_tokens"];

/** An SQL identifier latch quotes into statements: letters, digits, underscore. */
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The tables of one database that hold a person's address: latch's present ones and the application's. */
export interface Tables {
  latch: readonly LatchTable[];
  owned: readonly OwnedTable[];
  /** The present GRANT_TABLES. */
  grants: readonly string[];
  /** Whether the database has the events table (audit streams). */
  events: boolean;
  /** Whether the database has the sign-in rate table. */
  rate: boolean;
}

/**
 * Resolves the tables of `db` (its schema applied): latch's that exist,
 * and `owned`, each checked. Throws `AccountError`
 * ERR_ACCOUNT_INVALID_CONFIG naming an owned table or column that is not
 * a plain identifier or does not exist.
 */
export function resolveTables(db: DB, owned: readonly OwnedTable[]): Tables {
  const columns = (table: string): string[] =>
    (db.prepare(`SELECT name FROM pragma_table_info(?)`).all(table) as { name: string }[]).map((c) => c.name);
  for (const t of owned) {
    if (!IDENTIFIER.test(t.Table) || !IDENTIFIER.test(t.Column)) {
      throw new AccountError(
        "ERR_ACCOUNT_INVALID_CONFIG",
        `account: Tables: ${JSON.stringify(t.Table)}.${JSON.stringify(t.Column)} is not a plain SQL identifier`,
      );
    }
    const present = columns(t.Table);
    if (!present.includes(t.Column)) {
      throw new AccountError(
        "ERR_ACCOUNT_INVALID_CONFIG",
        `account: Tables: ${t.Table}.${t.Column} does not exist (apply the schema first)`,
      );
    }
    if (t.Streams === true && !present.includes("id")) {
      throw new AccountError("ERR_ACCOUNT_INVALID_CONFIG", `account: Tables: ${t.Table} has Streams but no id column`);
    }
  }
  return {
    latch: LATCH_TABLES.filter((t) => columns(t.table).includes(t.column)),
    grants: GRANT_TABLES.filter((table) => columns(table).includes("token_id")),
    owned: [...owned],
    events: columns("events").length > 0,
    rate: columns("signin_rate_events").length > 0,
  };
}
