/*
 * Per-request values (DESIGN.md: stored against the request, read by
 * accessors, never patched onto Node's objects), all of one request in one
 * array. Each module that binds something to a request takes a slot when it
 * loads and keeps it private: only the holder of a slot can read or write
 * it, so a binding such as an agent's grant stays writable by its own module
 * alone.
 *
 * Where the array lives: on a request of `Serve`'s server, a
 * `SlottedRequest` (`createServer`'s `IncomingMessage` option), in the
 * request's own private field; on any other request (a handler mounted on
 * the application's own server, a test calling one directly), in one entry
 * of a WeakMap keyed by the request. Why not a WeakMap for every request:
 * an entry on a fresh key is the costly part of a binding (an insert into a
 * table the garbage collector then visits as an ephemeron), and an
 * authenticated request used to make three, one per module (the route
 * match, the chain's guard and the session). The field made latch's
 * authenticated request about 6% cheaper (BENCHMARKS.md, "What moved (d)").
 */
import { IncomingMessage } from "node:http";

const bound = new WeakMap<IncomingMessage, unknown[]>();
let taken = 0;

// Set by SlottedRequest's static block, the one place its private field is reachable from.
let valuesOf!: (req: IncomingMessage) => unknown[] | undefined;
let keep!: (req: IncomingMessage, values: unknown[]) => void;

/** The request class of `Serve`'s server: it holds its values itself (see the file comment). */
export class SlottedRequest extends IncomingMessage {
  #values: unknown[] | undefined = undefined;

  static {
    valuesOf = (req) => (#values in req ? req.#values : bound.get(req));
    keep = (req, values) => {
      if (#values in req) req.#values = values;
      else bound.set(req, values);
    };
  }
}

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
    get: (req) => valuesOf(req)?.[index] as T | undefined,
    set: (req, value) => {
      const values = valuesOf(req);
      if (values !== undefined) values[index] = value;
      else if (value !== undefined) keep(req, newValues(index, value));
    },
  };
}

function newValues(index: number, value: unknown): unknown[] {
  // Holes read as undefined; filling them first cost more than the rest of a binding (Node 22 and 26).
  const values = new Array<unknown>(taken);
  values[index] = value;
  return values;
}
