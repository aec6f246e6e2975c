/*
 * Per-request values (docs/design.md: stored against the request, never
 * patched onto Node's objects), each module's in its private slot. A
 * `SlottedRequest` keeps them in a private field, any other request in one
 * WeakMap entry: an entry on a fresh key is the costly part of a binding
 * (BENCHMARKS.md, "What moved (d)").
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
