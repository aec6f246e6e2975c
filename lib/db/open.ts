/*
 * OpenDB: the one better-sqlite3 handle a process uses. Pragma order
 * matters: busy_timeout first, so every later statement (the switch to WAL
 * needs a lock) waits for a competing writer instead of SQLITE_BUSY; WAL, so
 * readers never block the writer (not in memory, which cannot use it);
 * synchronous NORMAL, safe in WAL; foreign_keys, off by default per
 * connection; trusted_schema OFF (SQLite's hardening advice).
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
 * Opens (creating it and its directory if needed) the database at `path` and applies `PRAGMAS`; throws `DBError` ERR_DB_OPEN.
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
