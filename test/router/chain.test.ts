import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { IncomingMessage } from "node:http";
import { Mux } from "../../lib/router/index.ts";
import { isRouterError } from "../../lib/router/errors.ts";
import type { HandlerFunc, Middleware } from "../../lib/http/index.ts";
import { serve } from "./support.ts";

// Per-request trace of the layers that ran, answered in the body.
const traces = new WeakMap<IncomingMessage, string[]>();

function trace(req: IncomingMessage, step: string): void {
  const list = traces.get(req) ?? [];
  list.push(step);
  traces.set(req, list);
}

function tag(name: string): Middleware {
  return function tagLayer(next) {
    return function tagged(req, res) {
      trace(req, name);
      return next(req, res);
    };
  };
}

const final: HandlerFunc = (req, res) => {
  trace(req, "handler");
  res.end((traces.get(req) ?? []).join(","));
};

describe("Mux.With()", () => {
  it("applies group middleware only to the group's routes, outer-first", async (t) => {
    const mux = new Mux();
    mux.With(tag("a"), tag("b")).Handle("GET /g", final);
    mux.Handle("GET /plain", final);
    const send = await serve(t, mux.ServeHTTP);
    assert.equal((await send("GET", "/g")).body, "a,b,handler");
    assert.equal((await send("GET", "/plain")).body, "handler");
  });

  it("nests groups: the outer group's middleware runs first", async (t) => {
    const mux = new Mux();
    const outer = mux.With(tag("outer"));
    outer.With(tag("inner1"), tag("inner2")).Handle("/n", final);
    outer.Handle("/o", final);
    const send = await serve(t, mux.ServeHTTP);
    assert.equal((await send("GET", "/n")).body, "outer,inner1,inner2,handler");
    assert.equal((await send("GET", "/o")).body, "outer,handler");
  });

  it("composes the chain once, at registration", async (t) => {
    let built = 0;
    const counting: Middleware = function countingLayer(next) {
      built++;
      return next;
    };
    const mux = new Mux();
    mux.With(counting).Handle("/c", final);
    assert.equal(built, 1);
    const send = await serve(t, mux.ServeHTTP);
    for (let k = 0; k < 3; k++) assert.equal((await send("GET", "/c")).status, 200);
    assert.equal(built, 1);
  });

  it("throws ERR_ROUTER_NEXT_TWICE when a middleware calls next twice", async (t) => {
    const twice: Middleware = function twiceLayer(next) {
      return function callsTwice(req, res) {
        void next(req, res);
        try {
          void next(req, res);
        } catch (e) {
          res.end(`${(traces.get(req) ?? []).join(",")} ${isRouterError(e) ? e.code : "other"}`);
        }
      };
    };
    const mux = new Mux();
    mux.With(tag("outer"), twice).Handle("/twice", (req) => trace(req, "handler"));
    const send = await serve(t, mux.ServeHTTP);
    assert.equal((await send("GET", "/twice")).body, "outer,handler ERR_ROUTER_NEXT_TWICE");
    assert.equal((await send("GET", "/twice")).body, "outer,handler ERR_ROUTER_NEXT_TWICE", "each request gets one call");
  });

  it("lets the next-twice error propagate out of ServeHTTP", async (t) => {
    const twice: Middleware = function twiceLayer(next) {
      return async function callsTwice(req, res) {
        await next(req, res);
        await next(req, res);
      };
    };
    const mux = new Mux();
    mux.With(twice).Handle("/twice", () => undefined);
    const send = await serve(t, mux.ServeHTTP);
    const r = await send("GET", "/twice");
    assert.equal(r.status, 500);
    assert.match(r.body, /^thrown: middleware: next\(\) called twice/);
  });
});
