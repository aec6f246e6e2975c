/*
 * Middleware composition, done once when a route is registered, never per
 * request. The list is applied outer-first: `With(a, b).Handle(p, h)` runs
 * a, then b, then h. Between two layers sits a guard that refuses a second
 * call of `next` for the same request; it remembers requests in a WeakSet
 * of its own, so no closure or array is created per request.
 */
import type { IncomingMessage } from "node:http";
import type { HandlerFunc, Middleware } from "../http/index.ts";
import { RouterError } from "./errors.ts";

function guardOnce(inner: HandlerFunc, layer: number): HandlerFunc {
  const called = new WeakSet<IncomingMessage>();
  return function nextOnce(req, res) {
    if (called.has(req)) {
      throw new RouterError("ERR_ROUTER_NEXT_TWICE", `middleware: next() called twice (middleware ${layer} of the chain)`);
    }
    called.add(req);
    return inner(req, res);
  };
}

/**
 * Wraps `handler` in `middleware`, the first element outermost. Throws
 * `ERR_ROUTER_INVALID_HANDLER` when a middleware returns no function.
 */
export function composeChain(middleware: readonly Middleware[], handler: HandlerFunc): HandlerFunc {
  let h = handler;
  for (let k = middleware.length - 1; k >= 0; k--) {
    const mw = middleware[k];
    if (typeof mw !== "function") {
      throw new RouterError("ERR_ROUTER_INVALID_HANDLER", `With: middleware ${k + 1} is not a function`);
    }
    const wrapped: HandlerFunc = mw(guardOnce(h, k + 1));
    if (typeof wrapped !== "function") {
      throw new RouterError("ERR_ROUTER_INVALID_HANDLER", `With: middleware ${k + 1} returned no handler`);
    }
    h = wrapped;
  }
  return h;
}
