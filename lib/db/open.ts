/*
 * OpenDB: the one better-sqlite3 handle a process uses. Pragma order
 * matters:
 *   1. busy_timeout first, so every later statement (including the switch
 *      to WAL, which needs a lock) waits for a competing writer instead of
 *      failing with SQLITE_BUSY;
 *   2. journal_mode = WAL: readers never block the writer;
 *   3. synchronous = NORMAL: durable across application crashes, and the
 *      safe, fast setting in WAL mode;
 *   4. foreign_keys = ON: off by default in SQLite, per connection;
 *   5. trusted_schema = OFF: schema-embedded SQL cannot call functions with
 *      side effects (SQLite's hardening advice).
 * An in-memory path (":memory:" or "") skips WAL, which it cannot use.
 */
import Database from "better-sqlite3";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { DBError } from "./errors.ts";
import type { DB } from "./handle.ts";

/** Milliseconds a statement waits for a lock before failing. */
export const BUSY_TIMEOUT: number = 5000;

/** The pragmas `OpenDB` applies, in order. */
export const PRAGMAS: readonly string[] = [
  `busy_timeout = ${BUSY_TIMEOUT}`,
  "journal_mode = WAL",
  "synchronous = NORMAL",
  "foreign_keys = ON",
  "trusted_schema = OFF",
];

/**
 * Opens (creating if needed, with its directory) the SQLite database at
 * `path` and applies `PRAGMAS` in order. Throws `DBError` ERR_DB_OPEN.
 *
 * @example
 * const db = OpenDB("./data/app.db");
 */
export function OpenDB(path: string): DB {
  const memory = path === "" || path === ":memory:";
  try {
    if (!memory) mkdirSync(dirname(path), { recursive: true });
    const db = new Database(memory ? ":memory:" : path);
    for (const pragma of PRAGMAS) {
      if (memory && pragma.startsWith("journal_mode")) continue;
      db.pragma(pragma);
    }
    return db;
  } catch (cause) {
    throw new DBError("ERR_DB_OPEN", `open db: cannot open ${path}`, { cause });
  }
}
