/*
 * Middleware composition, done once when a route is registered, never per
 * request. The list is applied outer-first: `With(a, b).Handle(p, h)` runs
 * a, then b, then h. Between two layers sits a guard that refuses a second
 * call of `next` for the same request; the guards a request has passed are
 * kept in one request slot (lib/internal), so no closure is created per
 * request and a request makes no binding of its own per layer.
 */
import type { HandlerFunc, Middleware } from "../http/index.ts";
import { requestSlot } from "../internal/index.ts";
import { RouterError } from "./errors.ts";

const passed = requestSlot<HandlerFunc[]>();

function guardOnce(inner: HandlerFunc, layer: number): HandlerFunc {
  const nextOnce: HandlerFunc = (req, res) => {
    const guards = passed.get(req);
    if (guards === undefined) passed.set(req, [nextOnce]);
    else if (guards.includes(nextOnce)) {
      throw new RouterError("ERR_ROUTER_NEXT_TWICE", `middleware: next() called twice (middleware ${layer} of the chain)`);
    } else guards.push(nextOnce);
    return inner(req, res);
  };
  return nextOnce;
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
