import assert from "node:assert/strict";
import type { IncomingMessage, ServerResponse } from "node:http";
import { describe, test } from "node:test";
import { type HandlerFunc } from "../../lib/http/index.ts";
import { BuildVersion } from "../../lib/index.ts";
import { fetchHTTP, startHandler } from "../_support/http.ts";

const appNotFound = (_req: IncomingMessage, res: ServerResponse): void => {
  res.statusCode = 404;
  res.end("app 404");
};

// A Wrap that refuses every request, as an authorization middleware might.
const refuseAll = (): HandlerFunc => (_req, res) => {
  res.statusCode = 403;
  res.end("forbidden by Wrap");
};

function parseJSON(body: string): unknown {
  return JSON.parse(body);
}

describe("Chrome()", () => {
  test("answers /healthz and /api/version with 200 JSON even when Wrap refuses everything", async (t) => {
    const { port } = await startHandler(t, { Mux: appNotFound, Wrap: refuseAll, DBPath: ":memory:" });
    const health = await fetchHTTP(port, "/healthz");
    assert.equal(health.status, 200);
    assert.match(String(health.headers["content-type"]), /^application\/json/);
    assert.deepEqual(parseJSON(health.body), { status: "ok" });
    const version = await fetchHTTP(port, "/api/version?cache=bust");
    assert.equal(version.status, 200);
    assert.match(String(version.headers["content-type"]), /^application\/json/);
    assert.deepEqual(parseJSON(version.body), { version: "dev" });
    assert.equal(BuildVersion, "dev");
    const other = await fetchHTTP(port, "/other");
    assert.equal(other.status, 403);
    assert.equal(other.body, "forbidden by Wrap");
  });

  test("answers HEAD /healthz without a body", async (t) => {
    const { port } = await startHandler(t, { Mux: appNotFound, Wrap: refuseAll });
    const reply = await fetchHTTP(port, "/healthz", { method: "HEAD" });
    assert.equal(reply.status, 200);
    assert.equal(reply.body, "");
  });

  for (const path of ["/healthz", "/api/version"]) {
    test(`answers POST ${path} with 405 and Allow`, async (t) => {
      const { port } = await startHandler(t, { Mux: appNotFound });
      const reply = await fetchHTTP(port, path, { method: "POST" });
      assert.equal(reply.status, 405);
      assert.equal(reply.headers["allow"], "GET, HEAD");
    });
  }

  test("leaves /api/next-due to the application when NextDue is unset", async (t) => {
    const { port } = await startHandler(t, { Mux: appNotFound });
    const reply = await fetchHTTP(port, "/api/next-due");
    assert.equal(reply.status, 404);
    assert.equal(reply.body, "app 404");
  });

  const dues: { name: string; due: Date | undefined; want: string | null }[] = [
    { name: "a Date", due: new Date("2030-01-02T03:04:05.000Z"), want: "2030-01-02T03:04:05.000Z" },
    { name: "undefined", due: undefined, want: null },
  ];
  for (const { name, due, want } of dues) {
    test(`answers /api/next-due outside Wrap when NextDue returns ${name}`, async (t) => {
      const { port } = await startHandler(t, { Mux: appNotFound, Wrap: refuseAll, NextDue: async () => due });
      const reply = await fetchHTTP(port, "/api/next-due");
      assert.equal(reply.status, 200);
      assert.deepEqual(parseJSON(reply.body), { next_due: want });
    });
  }

  test("answers POST /api/next-due with 405 when NextDue is set", async (t) => {
    const { port } = await startHandler(t, { Mux: appNotFound, NextDue: () => undefined });
    const reply = await fetchHTTP(port, "/api/next-due", { method: "POST" });
    assert.equal(reply.status, 405);
    assert.equal(reply.headers["allow"], "GET, HEAD");
  });

  test("passes lookalike paths through to the application", async (t) => {
    const { port } = await startHandler(t, { Mux: appNotFound });
    for (const path of ["/healthz/", "/healthzz", "/api/version/x", "/HEALTHZ"]) {
      const reply = await fetchHTTP(port, path);
      assert.equal(reply.body, "app 404", path);
    }
  });
});
