import assert from "node:assert/strict";
import { connect } from "node:net";
import { describe, test, type TestContext } from "node:test";
import { DEFAULT_HEADERS_TIMEOUT } from "../../lib/runtime/serve.ts";
import {
  DEFAULT_MAX_CONNECTIONS_PER_CLIENT,
  defaultMaxConnections,
  FALLBACK_FILE_LIMIT,
  readFileLimit,
  RESERVED_FILES,
} from "../../lib/runtime/connection-limits.ts";
import { Serve, type Options } from "../../lib/index.ts";
import { validateOptions } from "../../lib/runtime/options.ts";
import { captureLog, fetchHTTP, type CapturedLog } from "../_support/http.ts";
import { holdSlowHeaders } from "../_support/slow-client.ts";

/** Serves `opts` on 127.0.0.1:0 until the test ends. */
async function serve(t: TestContext, opts: Partial<Options>): Promise<{ port: number; log: CapturedLog }> {
  const log = captureLog();
  const stop = new AbortController();
  const served = Serve({
    Mux: (_req, res) => void res.end("ok"),
    Addr: "127.0.0.1:0",
    Logger: log.logger,
    Signal: stop.signal,
    ShutdownGrace: 1,
    ...opts,
  });
  t.after(async () => {
    stop.abort();
    await served;
  });
  const line = await log.waitFor((l) => l["msg"] === "listening");
  return { port: Number(/:(\d+)$/.exec(String(line["addr"]))?.[1]), log };
}

/** The body of the refusal `Serve` writes at a limit. */
const REFUSED = /^HTTP\/1\.1 503 Service Unavailable\r\n[^]*Retry-After: 5\r\n[^]*\r\n\r\nToo many connections\. :\(\n$/;

describe("Serve() connection limits", () => {
  test("defaults: 10 s for a request head, 64 connections per client, the file limit less 128 in all", () => {
    assert.equal(DEFAULT_HEADERS_TIMEOUT, 10_000);
    assert.equal(DEFAULT_MAX_CONNECTIONS_PER_CLIENT, 64);
    assert.equal(RESERVED_FILES, 128);
    assert.equal(FALLBACK_FILE_LIMIT, 1024);
    assert.equal(defaultMaxConnections(1024), 896);
    assert.equal(defaultMaxConnections(100), 1);
    assert.equal(defaultMaxConnections(Infinity), Infinity);
  });

  test("readFileLimit() reads the soft open-files limit, unlimited as Infinity, else the fallback", () => {
    const row = (soft: string): string =>
      `Limit                     Soft Limit           Hard Limit           Units\nMax cpu time              unlimited            unlimited            seconds\nMax open files            ${soft}                 524288               files\n`;
    assert.equal(readFileLimit(row("1024")), 1024);
    assert.equal(readFileLimit(row("65536")), 65536);
    assert.equal(readFileLimit(row("unlimited")), Infinity);
    assert.equal(readFileLimit("garbage"), FALLBACK_FILE_LIMIT);
    assert.equal(readFileLimit(row("0")), FALLBACK_FILE_LIMIT);
  });

  test("validateOptions() refuses a cap below 1 and an unusable headers timeout", () => {
    const mux = (): void => {};
    for (const bad of [
      { MaxConnections: 0 },
      { MaxConnections: 1.5 },
      { MaxConnectionsPerClient: 0 },
      { HeadersTimeout: Infinity },
      { HeadersTimeout: 0 },
    ]) {
      assert.throws(() => validateOptions({ Mux: mux, ...bad }), {
        code: "ERR_HTTP_INVALID_OPTIONS",
        message: new RegExp(Object.keys(bad)[0] ?? ""),
      });
    }
  });

  test("at MaxConnections, a probe evicts the longest-idle slow-header connection and gets its 200", async (t) => {
    const { port } = await serve(t, { MaxConnections: 20 });
    // 20 distinct clients (127.0.1.1 .. 127.0.20.1) each hold one slow request head.
    const held = [];
    for (let i = 1; i <= 20; i++) held.push(await holdSlowHeaders(port, `127.0.${i}.1`));
    assert.deepEqual(
      held.map((c) => c.status),
      new Array(20).fill(200),
    );
    for (let probe = 0; probe < 3; probe++) {
      const reply = await fetchHTTP(port, "/healthz");
      assert.equal(reply.status, 200, `probe ${probe}: ${JSON.stringify(reply.error)}`);
    }
    // The first probe found the server full and evicted the longest-idle connection, which got no answer.
    await held[0]?.closed;
    assert.equal(held[0]?.after(), "");
    // A later probe evicts again only if the server had not yet seen the earlier probe's connection close;
    // either way the evicted are the oldest, and the newest slow clients are untouched.
    const evicted = held.map((c) => c.socket.destroyed);
    assert.deepEqual(evicted, [
      ...new Array(evicted.lastIndexOf(true) + 1).fill(true),
      ...new Array(20 - evicted.lastIndexOf(true) - 1).fill(false),
    ]);
    assert.ok(evicted.lastIndexOf(true) < 3, JSON.stringify(evicted));
    for (const c of held) c.socket.destroy();
  });

  test("when every connection is handling a request, a new one is refused with a 503", async (t) => {
    let release = (): void => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    let entered = 0;
    let onAllEntered = (): void => {};
    const allEntered = new Promise<void>((resolve) => (onAllEntered = resolve));
    const { port, log } = await serve(t, {
      MaxConnections: 3,
      Mux: async (req, res) => {
        if (req.url === "/hold") {
          if (++entered === 3) onAllEntered();
          await gate;
        }
        res.end("ok");
      },
    });
    const holders = [1, 2, 3].map(() => fetchHTTP(port, "/hold"));
    await allEntered;
    const refused = await rawExchange(port, "127.0.0.1", "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n");
    assert.match(refused, REFUSED);
    assert.equal((await log.waitFor((l) => l["msg"] === "connection refused"))["reason"], "connection limit");
    release();
    for (const r of await Promise.all(holders)) assert.equal(r.status, 200);
    assert.equal((await fetchHTTP(port, "/healthz")).status, 200);
  });

  test("a client address at MaxConnectionsPerClient is refused; other addresses are served", async (t) => {
    const { port, log } = await serve(t, { MaxConnections: 20, MaxConnectionsPerClient: 2 });
    const held = [await holdSlowHeaders(port, "127.0.0.5"), await holdSlowHeaders(port, "127.0.0.5")];
    const third = await rawExchange(port, "127.0.0.5", "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n");
    assert.match(third, REFUSED);
    assert.equal((await log.waitFor((l) => l["msg"] === "connection refused"))["reason"], "per-client limit");
    assert.equal((await fetchHTTP(port, "/healthz", { localAddress: "127.0.0.6" })).status, 200);
    // Both held connections are untouched by the refusal.
    for (const c of held) assert.equal(c.socket.destroyed, false);
    for (const c of held) c.socket.destroy();
  });

  test("a request head not complete within HeadersTimeout gets a 408 and the connection closes", async (t) => {
    const { port } = await serve(t, { HeadersTimeout: 200 });
    const slow = await holdSlowHeaders(port, "127.0.0.7");
    await slow.closed;
    assert.match(slow.after(), /^HTTP\/1\.1 408 Request Timeout\r\n/);
  });
});

/** Writes `text` from `localAddress` and resolves with everything read until the server closes. */
function rawExchange(port: number, localAddress: string, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: "127.0.0.1", localAddress }, () => socket.write(text));
    let out = "";
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => (out += chunk));
    socket.on("error", (err: NodeJS.ErrnoException) => (err.code === "ECONNRESET" || err.code === "EPIPE" ? resolve(out) : reject(err)));
    socket.on("close", () => resolve(out));
  });
}
