import { describe, it, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { Mux, PathValue } from "../../lib/router/index.ts";
import { Pattern } from "../../lib/router/path-value.ts";
import type { HandlerFunc } from "../../lib/http/index.ts";
import { serve } from "./support.ts";

const PATTERNS = [
  "/",
  "GET /{$}",
  "/a/b",
  "/a/{x}",
  "/a/{x}/c",
  "GET /users/{id}",
  "GET /users/me",
  "POST /users/{id}",
  "/files/{rest...}",
  "/files/readme",
  "/static/",
  "/static/app.js",
  "HEAD /h",
  "GET /h",
  "GET /items/{$}",
  "/items/",
  "example.test/host",
  "/host",
];

const NAMES = ["x", "id", "rest"];

// Answers with the matched pattern in a header (so HEAD shows it too) and the values in the body.
const echo: HandlerFunc = (req, res) => {
  res.setHeader("X-Pattern", Pattern(req));
  const values: Record<string, string> = {};
  for (const n of NAMES) if (PathValue(req, n) !== "") values[n] = PathValue(req, n);
  res.end(JSON.stringify(values));
};

const CASES: { method: string; target: string; host?: string; pattern: string; values?: Record<string, string> }[] = [
  { method: "GET", target: "/", pattern: "GET /{$}" },
  { method: "POST", target: "/", pattern: "/" },
  { method: "GET", target: "/zzz/y", pattern: "/" },
  { method: "GET", target: "/a/b", pattern: "/a/b" },
  { method: "GET", target: "/a/%62", pattern: "/a/b" },
  { method: "GET", target: "/a/q", pattern: "/a/{x}", values: { x: "q" } },
  { method: "GET", target: "/a/b/c", pattern: "/a/{x}/c", values: { x: "b" } },
  { method: "GET", target: "/users/me", pattern: "GET /users/me" },
  { method: "GET", target: "/users/42", pattern: "GET /users/{id}", values: { id: "42" } },
  { method: "POST", target: "/users/42", pattern: "POST /users/{id}", values: { id: "42" } },
  { method: "GET", target: "/users/a%2Fb", pattern: "GET /users/{id}", values: { id: "a/b" } },
  { method: "GET", target: "/a/%C3%A9", pattern: "/a/{x}", values: { x: "é" } },
  { method: "GET", target: "/files/readme", pattern: "/files/readme" },
  { method: "GET", target: "/files/a%20b/c%2Fd", pattern: "/files/{rest...}", values: { rest: "a b/c/d" } },
  { method: "GET", target: "/files/", pattern: "/files/{rest...}" },
  { method: "GET", target: "/static/app.js", pattern: "/static/app.js" },
  { method: "GET", target: "/static/x/y", pattern: "/static/" },
  { method: "GET", target: "/static/", pattern: "/static/" },
  { method: "HEAD", target: "/h", pattern: "HEAD /h" },
  { method: "GET", target: "/h", pattern: "GET /h" },
  { method: "GET", target: "/items/", pattern: "GET /items/{$}" },
  { method: "GET", target: "/items/x", pattern: "/items/" },
  { method: "GET", target: "/host", host: "Example.TEST:8080", pattern: "example.test/host" },
  { method: "GET", target: "/host", host: "other.test", pattern: "/host" },
  { method: "GET", target: "http://Example.TEST:8080/host", host: "other.test", pattern: "example.test/host" },
  { method: "GET", target: "http://other.test/host", host: "example.test", pattern: "/host" },
  { method: "GET", target: "http://example.test/users/7?x=1", pattern: "GET /users/{id}", values: { id: "7" } },
];

async function checkAll(t: TestContext, patterns: string[]): Promise<void> {
  const mux = new Mux();
  for (const p of patterns) mux.Handle(p, echo);
  const send = await serve(t, mux.ServeHTTP);
  for (const c of CASES) {
    const r = await send(c.method, c.target, c.host === undefined ? {} : { Host: c.host });
    const what = `${c.method} ${c.target}`;
    assert.equal(r.status, 200, what);
    assert.equal(r.headers["x-pattern"], c.pattern, what);
    if (c.method !== "HEAD") assert.deepEqual(JSON.parse(r.body), c.values ?? {}, what);
  }
}

describe("Mux.ServeHTTP() routing", () => {
  it("picks the most specific pattern (registered in order)", async (t) => {
    await checkAll(t, PATTERNS);
  });

  it("picks the same patterns when registered in reverse order", async (t) => {
    await checkAll(t, [...PATTERNS].reverse());
  });

  it("answers HEAD with the GET route and no body", async (t) => {
    const mux = new Mux();
    mux.Handle("GET /users/{id}", (req, res) => {
      res.setHeader("X-Method", req.method ?? "");
      res.end(`user ${PathValue(req, "id")}`);
    });
    const send = await serve(t, mux.ServeHTTP);
    const r = await send("HEAD", "/users/9");
    assert.equal(r.status, 200);
    assert.equal(r.headers["x-method"], "HEAD");
    assert.equal(r.body, "");
    assert.equal((await send("GET", "/users/9")).body, "user 9");
  });

  it("does not match a single wildcard against an empty final segment", async (t) => {
    const mux = new Mux();
    mux.Handle("/a/{x}", echo);
    const send = await serve(t, mux.ServeHTTP);
    assert.equal((await send("GET", "/a/")).status, 404);
  });

  it("is a bound property that can be passed around unbound", async (t) => {
    const mux = new Mux();
    mux.Handle("GET /ok", (_req, res) => void res.end("ok"));
    const { ServeHTTP } = mux;
    const send = await serve(t, (req, res) => ServeHTTP(req, res));
    assert.equal((await send("GET", "/ok")).body, "ok");
  });
});
