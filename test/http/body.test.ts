import assert from "node:assert/strict";
import type { IncomingMessage, ServerResponse } from "node:http";
import { connect } from "node:net";
import { describe, test } from "node:test";
import { readForm, readJSON } from "../../lib/http/index.ts";
import { mediaType } from "../../lib/internal/index.ts";
import { fetchHTTP, startHandler, type FetchOptions } from "../_support/http.ts";

const LIMIT = 64;

// Echoes what the readers parsed; every failure propagates to Recover.
async function echo(req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.url === "/form") {
    const form = await readForm(req, { limit: LIMIT });
    res.end(JSON.stringify([...form]));
    return;
  }
  const value = await readJSON(req, { limit: LIMIT });
  res.end(JSON.stringify(value));
}

const FORM = "application/x-www-form-urlencoded";
const big = "a=" + "x".repeat(LIMIT * 4);

describe("readForm() and readJSON()", () => {
  const cases: { name: string; path: string; opts: FetchOptions; status: number; body?: string }[] = [
    {
      name: "a small form",
      path: "/form",
      opts: { method: "POST", headers: { "Content-Type": FORM }, body: "a=1&b=%C3%A9" },
      status: 200,
      body: '[["a","1"],["b","é"]]',
    },
    {
      name: "a small JSON body",
      path: "/json",
      opts: { method: "POST", headers: { "Content-Type": "application/json; charset=utf-8" }, body: '{"a":[1]}' },
      status: 200,
      body: '{"a":[1]}',
    },
    {
      name: "a +json media type",
      path: "/json",
      opts: { method: "POST", headers: { "Content-Type": "application/merge-patch+json" }, body: "[]" },
      status: 200,
      body: "[]",
    },
    {
      name: "a form with a declared length over the limit",
      path: "/form",
      opts: { method: "POST", headers: { "Content-Type": FORM }, body: big },
      status: 413,
    },
    {
      name: "a JSON body with a declared length over the limit",
      path: "/json",
      opts: { method: "POST", headers: { "Content-Type": "application/json" }, body: `"${"x".repeat(LIMIT * 4)}"` },
      status: 413,
    },
    {
      name: "a chunked form streamed past the limit",
      path: "/form",
      opts: {
        method: "POST",
        headers: { "Content-Type": FORM, "Transfer-Encoding": "chunked" },
        body: ["a=", "x".repeat(LIMIT), "x".repeat(LIMIT), "x".repeat(LIMIT)],
      },
      status: 413,
    },
    {
      name: "a chunked JSON body streamed past the limit",
      path: "/json",
      opts: {
        method: "POST",
        headers: { "Content-Type": "application/json", "Transfer-Encoding": "chunked" },
        body: ['"', "x".repeat(LIMIT), "x".repeat(LIMIT), '"'],
      },
      status: 413,
    },
    {
      name: "a form with another content type",
      path: "/form",
      opts: { method: "POST", headers: { "Content-Type": "text/plain" }, body: "a=1" },
      status: 415,
    },
    { name: "a form without a content type", path: "/form", opts: { method: "POST", body: "a=1" }, status: 415 },
    { name: "JSON sent as a form", path: "/json", opts: { method: "POST", headers: { "Content-Type": FORM }, body: "{}" }, status: 415 },
    {
      name: "malformed JSON",
      path: "/json",
      opts: { method: "POST", headers: { "Content-Type": "application/json" }, body: '{"a":' },
      status: 400,
    },
    {
      name: "an empty JSON body",
      path: "/json",
      opts: { method: "POST", headers: { "Content-Type": "application/json" }, body: "" },
      status: 400,
    },
  ];
  for (const c of cases) {
    test(`answers ${c.status} to ${c.name}`, async (t) => {
      const { port, log } = await startHandler(t, { Mux: echo });
      const reply = await fetchHTTP(port, c.path, c.opts);
      assert.equal(reply.error, undefined, `request failed: ${reply.error?.message}`);
      assert.equal(reply.status, c.status, reply.body);
      if (c.body !== undefined) assert.equal(reply.body, c.body);
      if (c.status === 413) assert.match(reply.body, /larger than 64 bytes/);
      if (c.status === 415) assert.match(reply.body, /expected application\//);
      if (c.status === 400) assert.match(reply.body, /not valid JSON/);
      assert.deepEqual(
        log.lines().filter((l) => l["level"] === "error"),
        [],
      );
    });
  }

  test("answers 413 to a megabyte streamed without a length, then keeps serving", async (t) => {
    const { port } = await startHandler(t, { Mux: echo });
    const chunks = ["a=", ...Array.from({ length: 64 }, () => "x".repeat(16 * 1024))];
    const over = await fetchHTTP(port, "/form", {
      method: "POST",
      headers: { "Content-Type": FORM, "Transfer-Encoding": "chunked" },
      body: chunks,
    });
    assert.equal(over.status, 413);
    const ok = await fetchHTTP(port, "/form", { method: "POST", headers: { "Content-Type": FORM }, body: "a=1" });
    assert.equal(ok.status, 200);
  });

  test("a client that disconnects mid-body ends the request quietly: no panic is logged", async (t) => {
    const { port, log } = await startHandler(t, { Mux: echo });
    const socket = connect(port, "127.0.0.1");
    await new Promise<void>((resolve) => socket.once("connect", resolve));
    socket.write(`POST /form HTTP/1.1\r\nHost: x\r\nContent-Type: ${FORM}\r\nContent-Length: 60\r\n\r\na=12`);
    await new Promise((resolve) => setImmediate(resolve));
    socket.destroy();
    const ok = await fetchHTTP(port, "/form", { method: "POST", headers: { "Content-Type": FORM }, body: "a=1" });
    assert.equal(ok.status, 200);
    assert.deepEqual(
      log.lines().filter((l) => l["level"] === "error"),
      [],
    );
  });
});

describe("mediaType()", () => {
  test('answers the Content-Type a client sent without parameters, lowercased, and "" without one', async (t) => {
    const { port } = await startHandler(t, { Mux: (req, res) => void res.end(JSON.stringify(mediaType(req))) });
    const seen = [];
    for (const type of ["Application/JSON; charset=utf-8", " text/plain ;q=1", undefined]) {
      const reply = await fetchHTTP(port, "/", {
        method: "POST",
        body: "x",
        ...(type !== undefined && { headers: { "Content-Type": type } }),
      });
      seen.push(JSON.parse(reply.body));
    }
    assert.deepEqual(seen, ["application/json", "text/plain", ""]);
  });
});
