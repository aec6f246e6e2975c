/*
 * Per-request values (DESIGN.md: stored against the request in a WeakMap,
 * read by accessors, never patched onto Node's objects), all of one request
 * behind a single WeakMap entry. Each module that binds something to a
 * request takes a slot when it loads and keeps it private: only the holder
 * of a slot can read or write it, so a binding such as an agent's grant
 * stays writable by its own module alone.
 *
 * Why one entry: a WeakMap entry on a fresh key is the costly part of a
 * binding (an insert into a table the garbage collector must then visit as
 * an ephemeron: about a microsecond, BENCHMARKS.md "(d) one entry per
 * request"), and an authenticated request used to make three (the route
 * match, the middleware chain's guard and the session) where it now makes one.
 */
import type { IncomingMessage } from "node:http";

const bound = new WeakMap<IncomingMessage, unknown[]>();
let taken = 0;

/** One module's value for each request; see `requestSlot`. */
export interface RequestSlot<T> {
  /** Returns the value bound to `req`, or undefined. */
  get(req: IncomingMessage): T | undefined;
  /** Binds `value` to `req` (undefined unbinds it). */
  set(req: IncomingMessage, value: T | undefined): void;
}

/**
 * Takes a new slot. Call it once per kind of value, at module load: every
 * request's array has room for every slot taken.
 */
export function requestSlot<T>(): RequestSlot<T> {
  const index = taken++;
  return {
    get: (req) => bound.get(req)?.[index] as T | undefined,
    set: (req, value) => {
      const values = bound.get(req);
      if (values !== undefined) values[index] = value;
      else if (value !== undefined) bound.set(req, newValues(index, value));
    },
  };
}

function newValues(index: number, value: unknown): unknown[] {
  const values = new Array<unknown>(taken).fill(undefined);
  values[index] = value;
  return values;
}
