#!/usr/bin/env node
/*
 * `npx latch audit verify <database>` (package.json "bin"; lib/events README "Verifying"): checks the hash chain of
 * every event stream in a latch SQLite database and prints the first broken link of each broken stream. It opens the
 * file read-only, so it runs beside the live application: in WAL mode a reader takes no lock a writer waits on.
 * Exit status: 0 every stream verifies, 1 a link is broken, 2 the command or the database is not usable.
 */
import Database from "better-sqlite3";
import type { DB } from "../lib/db/index.ts";
import { verifyEvents } from "../lib/events/verify.ts";

const USAGE = "usage: latch audit verify <database>";

function main(args: readonly string[]): number {
  const [group, command, path, ...rest] = args;
  if (group !== "audit" || command !== "verify" || path === undefined || rest.length > 0) {
    console.error(USAGE);
    return 2;
  }
  let db: DB;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
    const columns = db.prepare<[], string>("SELECT name FROM pragma_table_info('events')").pluck().all();
    if (!columns.includes("hash")) throw new Error("no chained events table (apply the events schema, step events/005-chain)");
  } catch (e) {
    console.error(`latch audit verify: cannot read ${path}: ${e instanceof Error ? e.message : String(e)}`);
    return 2;
  }
  try {
    const done = verifyEvents(db, (b) =>
      console.log(`broken: stream ${JSON.stringify(b.Stream)} sequence ${b.Seq}: ${b.Problem}: ${b.Detail}`),
    );
    const erased = `${done.Erased} kept in place by ${done.Erasures} erasures`;
    const summary = `${done.Events} events in ${done.Streams} streams (${erased})`;
    if (done.Broken > 0) {
      console.log(`latch audit verify: ${done.Broken} broken of ${summary}`);
      return 1;
    }
    console.log(`latch audit verify: ok, ${summary}`);
    return 0;
  } finally {
    db.close();
  }
}

process.exitCode = main(process.argv.slice(2));
