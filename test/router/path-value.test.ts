import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { IncomingMessage } from "node:http";
import { Socket } from "node:net";
import { Mux, PathValue } from "../../lib/router/index.ts";
import { Pattern, setPathValue } from "../../lib/router/path-value.ts";
import { serve } from "./support.ts";

function unrouted(): IncomingMessage {
  return new IncomingMessage(new Socket());
}

describe("PathValue()", () => {
  it('returns "" for a request the router never saw', () => {
    assert.equal(PathValue(unrouted(), "id"), "");
  });

  it('returns wildcard values unescaped and "" for unknown names', async (t) => {
    const mux = new Mux();
    mux.Handle("GET /p/{a}/{b}/{rest...}", (req, res) => {
      res.end(JSON.stringify([PathValue(req, "a"), PathValue(req, "b"), PathValue(req, "rest"), PathValue(req, "zzz")]));
    });
    const send = await serve(t, mux.ServeHTTP);
    const r = await send("GET", "/p/x%2Fy/%E2%82%AC/r%3Fs/t%25u");
    assert.deepEqual(JSON.parse(r.body), ["x/y", "€", "r?s/t%u", ""]);
  });

  it('unescapes after cleaning, so %2e%2e arrives as a literal ".." value', async (t) => {
    const mux = new Mux();
    mux.Handle("GET /files/{rest...}", (req, res) => void res.end(PathValue(req, "rest")));
    const send = await serve(t, mux.ServeHTTP);
    const r = await send("GET", "/files/%2e%2e/secret");
    assert.equal(r.status, 200);
    assert.equal(r.body, "../secret");
  });
});

describe("SetPathValue()", () => {
  it("overrides a matched value and adds new names without touching other requests", async (t) => {
    const mux = new Mux();
    mux.Handle("/s/{id}", (req, res) => {
      setPathValue(req, "id", "changed");
      setPathValue(req, "extra", "added");
      res.end(`${PathValue(req, "id")} ${PathValue(req, "extra")} ${Pattern(req)}`);
    });
    mux.Handle("/t/{id}", (req, res) => void res.end(`${PathValue(req, "id")}|${PathValue(req, "extra")}`));
    const send = await serve(t, mux.ServeHTTP);
    assert.equal((await send("GET", "/s/1")).body, "changed added /s/{id}");
    assert.equal((await send("GET", "/t/2")).body, "2|");
  });

  it("works on a request the router never saw", () => {
    const req = unrouted();
    setPathValue(req, "k", "v");
    assert.equal(PathValue(req, "k"), "v");
    assert.equal(Pattern(req), "");
  });

  it("does not leak between requests matching a pattern without wildcards", async (t) => {
    const mux = new Mux();
    mux.Handle("/plain", (req, res) => {
      const before = PathValue(req, "k");
      setPathValue(req, "k", "set");
      res.end(`[${before}]`);
    });
    const send = await serve(t, mux.ServeHTTP);
    assert.equal((await send("GET", "/plain")).body, "[]");
    assert.equal((await send("GET", "/plain")).body, "[]");
  });
});

describe("Pattern()", () => {
  it("returns the registered pattern string of the match", async (t) => {
    const mux = new Mux();
    mux.Handle("GET  /q/{id}", (req, res) => void res.end(Pattern(req)));
    const send = await serve(t, mux.ServeHTTP);
    assert.equal((await send("GET", "/q/1")).body, "GET  /q/{id}");
  });
});
