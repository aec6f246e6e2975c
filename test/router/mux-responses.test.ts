import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { IncomingMessage, ServerResponse } from "node:http";
import { Socket } from "node:net";
import type { HandlerFunc } from "../../lib/http/index.ts";
import { Mux } from "../../lib/router/index.ts";
import { label, serve } from "./support.ts";

function newMux(): Mux {
  const mux = new Mux();
  mux.Handle("GET /users/{id}", label("get user"));
  mux.Handle("POST /users/{id}", label("post user"));
  mux.Handle("DELETE /users/{id}", label("delete user"));
  mux.Handle("/static/", label("static"));
  mux.Handle("GET /files/{rest...}", label("files"));
  mux.Handle("GET /only/", label("only"));
  mux.Handle("GET /a/b", label("a/b"));
  return mux;
}

describe("Mux.ServeHTTP() answers", () => {
  it("404 with a plain text body when no pattern matches the path", async (t) => {
    const send = await serve(t, newMux().ServeHTTP);
    const r = await send("GET", "/nothing/here");
    assert.equal(r.status, 404);
    assert.equal(r.body, "404 page not found\n");
    assert.equal(r.headers["content-type"], "text/plain; charset=utf-8");
    assert.equal(r.headers["x-content-type-options"], "nosniff");
  });

  it("404 through the handler given to NotFound, keeping 405 with Allow, 400 and the redirects", async (t) => {
    const mux = newMux();
    const notFound: HandlerFunc = (_req, res) => {
      res.statusCode = 404;
      res.setHeader("Content-Type", "text/html; charset=utf-8");
      res.end("<p>styled</p>");
    };
    mux.NotFound(notFound);
    const send = await serve(t, mux.ServeHTTP);
    const miss = await send("GET", "/nothing/here");
    assert.equal(miss.status, 404);
    assert.equal(miss.body, "<p>styled</p>");
    const wrong = await send("PUT", "/users/7");
    assert.equal(wrong.status, 405);
    assert.equal(wrong.headers["allow"], "DELETE, GET, HEAD, POST");
    assert.equal((await send("GET", "/only")).status, 301);
    assert.equal((await send("GET", "/a/%zz")).status, 400);
    const [handler, pattern] = mux.Handler(Object.assign(new IncomingMessage(new Socket()), { method: "GET", url: "/nothing" }));
    assert.deepEqual([handler, pattern], [notFound, ""]);
  });

  it("refuses a NotFound handler that is not a function, or a second one", () => {
    const mux = new Mux();
    assert.throws(() => mux.NotFound("x" as never), { code: "ERR_ROUTER_INVALID_HANDLER", message: "NotFound: handler is not a function" });
    mux.NotFound(() => {});
    assert.throws(() => mux.NotFound(() => {}), { code: "ERR_ROUTER_CONFLICT", message: "NotFound: a not-found handler is already set" });
  });

  it("405 with Allow listing the matching methods, sorted, HEAD with GET", async (t) => {
    const send = await serve(t, newMux().ServeHTTP);
    const r = await send("PUT", "/users/7");
    assert.equal(r.status, 405);
    assert.equal(r.headers["allow"], "DELETE, GET, HEAD, POST");
    assert.match(r.body, /method not allowed/);
  });

  it("405 rather than a redirect when only another method has the subtree", async (t) => {
    const send = await serve(t, newMux().ServeHTTP);
    const r = await send("POST", "/only");
    assert.equal(r.status, 405);
    assert.equal(r.headers["allow"], "GET, HEAD");
  });

  it("a valid answer for methods no pattern names", async (t) => {
    const send = await serve(t, newMux().ServeHTTP);
    for (const method of ["PURGE", "M-SEARCH", "PROPFIND", "OPTIONS"]) {
      const r = await send(method, "/users/1");
      assert.equal(r.status, 405, method);
      assert.equal((await send(method, "/zzz")).status, 404, method);
    }
  });

  const redirects: { method: string; target: string; want: string }[] = [
    { method: "GET", target: "//a/b", want: "/a/b" },
    { method: "GET", target: "/x/../a/b?q=1&r=%20", want: "/a/b?q=1&r=%20" },
    { method: "GET", target: "/a/./b", want: "/a/b" },
    { method: "GET", target: "/../../a/b", want: "/a/b" },
    { method: "GET", target: "/static", want: "/static/" },
    { method: "POST", target: "/static?v=2", want: "/static/?v=2" },
    { method: "GET", target: "/files", want: "/files/" },
    { method: "GET", target: "/x/../static", want: "/static/" },
    { method: "GET", target: "/\\evil.test/./", want: "/%5Cevil.test/" },
  ];
  for (const row of redirects) {
    it(`301 from ${row.method} ${row.target} to ${row.want}`, async (t) => {
      const send = await serve(t, newMux().ServeHTTP);
      const r = await send(row.method, row.target);
      assert.equal(r.status, 301);
      assert.equal(r.headers["location"], row.want);
    });
  }

  it("no redirect away from a trailing slash: /users/1/ is not found", async (t) => {
    const send = await serve(t, newMux().ServeHTTP);
    assert.equal((await send("GET", "/users/1/")).status, 404);
  });

  const bad: { method: string; target: string }[] = [
    { method: "GET", target: "/users/%zz" },
    { method: "GET", target: "/users/%" },
    { method: "GET", target: "/static/%FF" },
    { method: "GET", target: "/nothing/%E2%82" },
    { method: "OPTIONS", target: "*" },
  ];
  for (const row of bad) {
    it(`400 for ${row.method} ${row.target}`, async (t) => {
      const send = await serve(t, newMux().ServeHTTP);
      const r = await send(row.method, row.target);
      assert.equal(r.status, 400);
      assert.equal(r.headers["content-type"], "text/plain; charset=utf-8");
      assert.match(r.body, /^400 bad request/);
      assert.ok(!r.body.includes(row.target), "the body never echoes the target");
    });
  }

  it("400 for targets node:http lets through only when called directly", () => {
    const mux = newMux();
    for (const target of ["weird", "", "example.test:443", "1http://x/users/1", "http://a:99999/users/1", "http://[::1/users/1"]) {
      const req = new IncomingMessage(new Socket());
      req.method = "GET";
      req.url = target;
      const res = new ServerResponse(req);
      void mux.ServeHTTP(req, res);
      assert.equal(res.statusCode, 400, JSON.stringify(target));
    }
  });

  it("routes an absolute-form target by its path", async (t) => {
    const send = await serve(t, newMux().ServeHTTP);
    const r = await send("GET", "http://example.test/users/5?x=1");
    assert.equal(r.status, 200);
    assert.equal(r.body, "get user");
  });
});

describe("Mux.ServeHTTP() on an absolute-form target with an empty path", () => {
  it('redirects to / keeping the query, as Go\'s ServeMux cleans "" to "/"', async (t) => {
    const send = await serve(t, newMux().ServeHTTP);
    const r = await send("GET", "http://example.test?x=1");
    assert.equal(r.status, 301);
    assert.equal(r.headers["location"], "/?x=1");
  });
});

describe("Mux.Handler()", () => {
  it('reports the pattern a request would match, and "" otherwise', async (t) => {
    const mux = newMux();
    const seen: string[] = [];
    const send = await serve(t, (req, res) => {
      const [h, pattern] = mux.Handler(req);
      seen.push(pattern);
      return h(req, res);
    });
    assert.equal((await send("GET", "/users/3")).body, "get user");
    assert.equal((await send("GET", "/nope")).status, 404);
    assert.equal((await send("PUT", "/users/3")).headers["allow"], "DELETE, GET, HEAD, POST");
    assert.equal((await send("GET", "/static")).headers["location"], "/static/");
    assert.deepEqual(seen, ["GET /users/{id}", "", "", ""]);
  });
});
