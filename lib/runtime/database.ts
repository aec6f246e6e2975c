// Database boot, shared by serving and the sidecar: open or adopt, migrate, bind the durability barrier.
import { resolve } from "node:path";
import { applyMigrations, applySchema, OpenDB, setDurable, type DB } from "../db/index.ts";
import { HTTPError } from "../http/index.ts";
import type { Options } from "./options.ts";

/** The database a process runs on, and how to let go of it. */
export interface BootedDB {
  /** The handle, or `undefined` for an application without a database. */
  db: DB | undefined;
  /** Closes the handle when the runtime opened it; safe to call twice. */
  close(): void;
}

/**
 * Opens (or adopts) the database and brings its schema up to date. Throws
 * `HTTPError` ERR_HTTP_INVALID_OPTIONS when migrations are given without a
 * database, and any database error; a handle it opened is closed first.
 */
export function bootDatabase(opts: Options): BootedDB {
  const owned = opts.DBPath ? OpenDB(opts.DBPath) : undefined;
  const db = owned ?? opts.DB;
  const close = (): void => {
    if (owned?.open === true) owned.close();
  };
  try {
    if (opts.Migrations !== undefined || opts.Schema !== undefined) {
      if (db === undefined) throw new HTTPError("ERR_HTTP_INVALID_OPTIONS", "options: migrations need DBPath or DB");
      if (opts.Migrations !== undefined) applyMigrations(db, opts.Migrations);
      if (opts.Schema !== undefined) applySchema(db, opts.Schema);
    }
    if (opts.Durable !== undefined && db !== undefined) {
      const { socket, path, timeout } = opts.Durable;
      setDurable(db, {
        path: path ?? resolve(db.name),
        ...(socket !== undefined && { socket }),
        ...(timeout !== undefined && { timeout }),
      });
    }
  } catch (err) {
    close();
    throw err;
  }
  return { db, close };
}
