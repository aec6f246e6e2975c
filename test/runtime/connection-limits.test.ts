import assert from "node:assert/strict";
import { connect, type Socket } from "node:net";
import { describe, test, type TestContext } from "node:test";
import { DEFAULT_HEADERS_TIMEOUT } from "../../lib/runtime/serve.ts";
import {
  BODY_GRACE,
  BODY_TOO_SLOW,
  DEFAULT_MAX_CONNECTIONS_PER_CLIENT,
  defaultMaxConnections,
  limitConnections,
  MIN_BODY_RATE,
  REFUSAL,
  RESERVED_FILES,
  STREAM_SHARE,
  type ConnectionLimits,
} from "../../lib/runtime/connection-limits.ts";
import { FALLBACK_FILE_LIMIT, readFileLimit } from "../../lib/runtime/file-limit.ts";
import {
  bytesTaken,
  checkWrites,
  MIN_WRITE_RATE,
  WAIT_DEADLINE,
  WAIT_SHARE,
  WAITED_TOO_LONG,
  WRITE_WINDOW,
} from "../../lib/runtime/busy-deadlines.ts";
import { waitOutside } from "../../lib/internal/waiting.ts";
import { Serve, type Options } from "../../lib/index.ts";
import { readBody, readForm, type HandlerFunc } from "../../lib/http/index.ts";
import { EventWriter } from "../../lib/internal/event-writer.ts";
import { validateOptions } from "../../lib/runtime/options.ts";
import { FakeClock } from "../_support/clock.ts";
import { captureLog, fetchHTTP, type CapturedLog } from "../_support/http.ts";
import { startServer } from "../_support/server.ts";
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
    assert.equal(BODY_GRACE, 10_000);
    assert.equal(MIN_BODY_RATE, 500);
    assert.equal(STREAM_SHARE, 0.5);
    assert.equal(WAIT_SHARE, 0.25);
    assert.equal(WAIT_DEADLINE, 10_000);
    assert.equal(WRITE_WINDOW, 10_000);
    assert.equal(MIN_WRITE_RATE, 500);
    assert.equal(DEFAULT_MAX_CONNECTIONS_PER_CLIENT, 64);
    assert.equal(RESERVED_FILES, 128);
    assert.equal(FALLBACK_FILE_LIMIT, 1024);
    assert.equal(defaultMaxConnections(1024), 896);
    assert.equal(defaultMaxConnections(100), 1);
    assert.equal(defaultMaxConnections(Infinity), Infinity);
  });

  test("the 503 and the 408 a connection reads before it closes declare their bodies' exact length", () => {
    for (const answer of [REFUSAL, BODY_TOO_SLOW, WAITED_TOO_LONG]) {
      const [head = "", body = ""] = answer.split("\r\n\r\n");
      assert.equal(Number(/\r\nContent-Length: (\d+)/.exec(head)?.[1]), Buffer.byteLength(body), head);
    }
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

  test("a form in 1,000 one-byte chunks reads a 413 at its 65th and the connection closes", async (t) => {
    const { port } = await serve(t, {
      Mux: async (req, res) => void res.end(`read ${[...(await readForm(req))].length} fields`),
    });
    const head =
      "POST /signin HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n";
    // The server closes the connection: the exchange ends without the client closing it.
    const reply = await rawExchange(port, "127.0.0.8", head + "1\r\na\r\n".repeat(1_000) + "0\r\n\r\n");
    assert.match(reply, /^HTTP\/1\.1 413 Payload Too Large\r\n/);
    assert.match(reply, /\r\nConnection: close\r\n/);
    assert.match(reply, /read body: 65 pieces for 65 bytes/);
    // The same form in one piece is read.
    const whole = await rawExchange(
      port,
      "127.0.0.8",
      head.replace("Transfer-Encoding: chunked", "Content-Length: 3\r\nConnection: close") + "a=1",
    );
    assert.match(whole, /^HTTP\/1\.1 200 OK\r\n[^]*read 1 fields$/);
  });

  test("a request head not complete within HeadersTimeout gets a 408 and the connection closes", async (t) => {
    const { port } = await serve(t, { HeadersTimeout: 200 });
    const slow = await holdSlowHeaders(port, "127.0.0.7");
    await slow.closed;
    assert.match(slow.after(), /^HTTP\/1\.1 408 Request Timeout\r\n/);
  });
});

describe("limitConnections(): uploads and streams", () => {
  /** A server with the limits on `clock`, serving GET /healthz, POST bodies (answered with their size), GET /stream. */
  async function limited(t: TestContext, max: number, clock: FakeClock): Promise<{ port: number; entered: (n: number) => Promise<void> }> {
    const served = await startServer(t);
    const log = captureLog();
    const limits: ConnectionLimits = limitConnections(served.server, { max, perClient: 64, headersTimeout: 10_000 }, log.logger, clock);
    let count = 0;
    const waiting: { n: number; resolve: () => void }[] = [];
    const handler: HandlerFunc = async (req, res) => {
      count++;
      for (const w of waiting.filter((w) => count >= w.n)) w.resolve();
      if (req.url === "/stream") {
        new EventWriter(res, { heartbeat: 60_000, writeTimeout: 60_000, lifetime: 60_000, retry: 1_000 });
        return;
      }
      if (req.method === "POST") {
        try {
          res.end(`read ${(await readBody(req, { limit: 10_000 })).length}`);
        } catch {
          res.destroy();
        }
        return;
      }
      res.end("ok");
    };
    served.server.on("request", limits.guard(handler));
    sweeps.set(served.port, limits);
    return {
      port: served.port,
      entered: (n) => (count >= n ? Promise.resolve() : new Promise((resolve) => waiting.push({ n, resolve }))),
    };
  }
  const sweeps = new Map<number, ConnectionLimits>();

  test("at the cap with no idle connection, a probe evicts the upload nearest its body deadline, which reads a 503", async (t) => {
    const clock = new FakeClock();
    const { port, entered } = await limited(t, 3, clock);
    const head = "POST /upload HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1000\r\n\r\n";
    // Three uploads begun at the same instant: the one that sent the fewest bytes has the least time left.
    const fast = openRaw(port, "127.0.0.11", head + "x".repeat(600));
    await entered(1);
    const slow = openRaw(port, "127.0.0.12", head);
    await entered(2);
    const middling = openRaw(port, "127.0.0.13", head + "x".repeat(300));
    await entered(3);
    const probe = await fetchHTTP(port, "/healthz", { localAddress: "127.0.0.14" });
    assert.equal(probe.status, 200);
    await slow.closed;
    assert.equal(slow.text(), REFUSAL);
    fast.socket.write("x".repeat(400));
    middling.socket.write("x".repeat(700));
    assert.match(await fast.response(), /\r\n\r\nread 1000$/);
    assert.match(await middling.response(), /\r\n\r\nread 1000$/);
  });

  test("at the cap, an upload nearer its body deadline goes before a connection that has just become idle", async (t) => {
    const clock = new FakeClock();
    const { port, entered } = await limited(t, 3, clock);
    const limits = sweeps.get(port);
    const upload = openRaw(port, "127.0.0.41", "POST /upload HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1000\r\n\r\n");
    await entered(1);
    // Half the grace later, two clients connect and have not sent their heads yet: their heads are due in 10 s.
    clock.advance(BODY_GRACE / 2);
    const fresh = [openRaw(port, "127.0.0.42", ""), openRaw(port, "127.0.0.43", "")];
    while (limits?.open() !== 3) await new Promise((resolve) => setImmediate(resolve));
    assert.equal((await fetchHTTP(port, "/healthz", { localAddress: "127.0.0.44" })).status, 200);
    await upload.closed;
    assert.equal(upload.text(), REFUSAL);
    assert.deepEqual(
      fresh.map((c) => c.socket.destroyed),
      [false, false],
    );
    for (const c of fresh) c.socket.destroy();
  });

  test("an upload past BODY_GRACE plus a second per MIN_BODY_RATE bytes received reads a 408 at the next sweep", async (t) => {
    const clock = new FakeClock();
    const { port, entered } = await limited(t, 10, clock);
    const head = "POST /upload HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5000\r\n\r\n";
    const trickle = openRaw(port, "127.0.0.21", head);
    await entered(1);
    // 500 bytes more than the trickle: one more second.
    const steadier = openRaw(port, "127.0.0.22", head + "x".repeat(MIN_BODY_RATE));
    await entered(2);
    const limits = sweeps.get(port);
    // The trickle's deadline: the grace, plus its head's bytes at MIN_BODY_RATE.
    const deadline = BODY_GRACE + (Buffer.byteLength(head) / MIN_BODY_RATE) * 1000;
    clock.advance(deadline);
    limits?.sweep();
    clock.advance(1);
    limits?.sweep();
    await trickle.closed;
    assert.equal(trickle.text(), BODY_TOO_SLOW);
    assert.equal(steadier.socket.destroyed, false);
    steadier.socket.write("x".repeat(5000 - MIN_BODY_RATE));
    assert.match(await steadier.response(), /\r\n\r\nread 5000$/);
  });

  test("nothing of a connection is kept once it closes: the count and its client's share are back", async (t) => {
    const served = await startServer(t);
    const limits = limitConnections(
      served.server,
      { max: 100, perClient: 3, headersTimeout: 10_000 },
      captureLog().logger,
      new FakeClock(),
    );
    served.server.on(
      "request",
      limits.guard((_req, res) => void res.end("ok")),
    );
    for (let round = 0; round < 3; round++) {
      // A client fills its share (idle keep-alives), then goes: a fourth connection while they are open is refused.
      const held = await Promise.all([1, 2, 3].map(() => holdSlowHeaders(served.port, "127.0.0.9")));
      assert.equal(limits.open(), 3);
      assert.match(await rawExchange(served.port, "127.0.0.9", "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n"), REFUSED);
      for (const c of held) c.socket.destroy();
      await Promise.all(held.map((c) => c.closed));
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(limits.open(), 0);
    }
  });

  test("event streams hold at most STREAM_SHARE of the cap: one more ends the oldest", async (t) => {
    const clock = new FakeClock();
    const { port, entered } = await limited(t, 6, clock);
    const get = "GET /stream HTTP/1.1\r\nHost: localhost\r\n\r\n";
    const streams = [];
    for (let i = 0; i < 3; i++) {
      streams.push(openRaw(port, `127.0.0.3${i}`, get));
      await entered(i + 1);
    }
    await streams[0]?.response();
    assert.match(streams[0]?.text() ?? "", /^HTTP\/1\.1 200 OK\r\n[^]*text\/event-stream/);
    // 3 streams under a share of 3: all open.
    assert.deepEqual(
      streams.map((s) => s.socket.destroyed),
      [false, false, false],
    );
    streams.push(openRaw(port, "127.0.0.34", get));
    await entered(4);
    await streams[0]?.closed;
    assert.deepEqual(
      streams.map((s) => s.socket.destroyed),
      [true, false, false, false],
    );
    assert.equal((await fetchHTTP(port, "/healthz", { localAddress: "127.0.0.35" })).status, 200);
    for (const s of streams) s.socket.destroy();
  });
});

describe("limitConnections(): waiting requests and unread responses", () => {
  async function limitedServer(
    t: TestContext,
    max: number,
    clock: FakeClock,
    handler: HandlerFunc,
  ): Promise<{ port: number; limits: ConnectionLimits; sockets: Socket[] }> {
    const sockets: Socket[] = [];
    const served = await startServer(t, undefined, { onConnection: (s) => void sockets.push(s) });
    const limits = limitConnections(served.server, { max, perClient: 64, headersTimeout: 10_000 }, captureLog().logger, clock);
    served.server.on("request", limits.guard(handler));
    return { port: served.port, limits, sockets };
  }
  const never = new Promise<void>(() => {});
  let entered = 0;
  const waiter: HandlerFunc = async (req, res) => {
    entered++;
    if (req.url === "/wait") await waitOutside(req, never);
    if (req.url === "/work") await never;
    res.end("ok");
  };
  const until = async (ready: () => boolean): Promise<void> => {
    while (!ready()) await new Promise((resolve) => setTimeout(resolve, 2));
  };

  test("waiting requests hold at most WAIT_SHARE of the cap: one more cuts the oldest with a 503", async (t) => {
    const clock = new FakeClock();
    // A cap of 8: two may wait.
    const { port } = await limitedServer(t, 8, clock, waiter);
    entered = 0;
    const waits = [];
    for (let i = 0; i < 3; i++) {
      waits.push(openRaw(port, `127.0.50.${i + 1}`, "GET /wait HTTP/1.1\r\nHost: localhost\r\n\r\n"));
      await until(() => entered === i + 1);
    }
    await waits[0]?.closed;
    assert.equal(waits[0]?.text(), REFUSAL);
    assert.deepEqual(
      waits.map((w) => w.socket.destroyed),
      [true, false, false],
    );
    for (const w of waits) w.socket.destroy();
  });

  test("at the cap, a probe evicts the oldest waiting request (503) when every other connection is at work", async (t) => {
    const clock = new FakeClock();
    const { port } = await limitedServer(t, 4, clock, waiter);
    entered = 0;
    const waiting = openRaw(port, "127.0.51.1", "GET /wait HTTP/1.1\r\nHost: localhost\r\n\r\n");
    await until(() => entered === 1);
    const working = [2, 3, 4].map((i) => openRaw(port, `127.0.51.${i}`, "GET /work HTTP/1.1\r\nHost: localhost\r\n\r\n"));
    await until(() => entered === 4);
    clock.advance(1);
    assert.equal((await fetchHTTP(port, "/healthz", { localAddress: "127.0.51.9" })).status, 200);
    await waiting.closed;
    assert.equal(waiting.text(), REFUSAL);
    assert.deepEqual(
      working.map((w) => w.socket.destroyed),
      [false, false, false],
    );
    for (const w of working) w.socket.destroy();
  });

  test("a request waiting past WAIT_DEADLINE reads a 504 at the next sweep", async (t) => {
    const clock = new FakeClock();
    const { port, limits } = await limitedServer(t, 8, clock, waiter);
    entered = 0;
    const waiting = openRaw(port, "127.0.52.1", "GET /wait HTTP/1.1\r\nHost: localhost\r\n\r\n");
    await until(() => entered === 1);
    clock.advance(WAIT_DEADLINE - 1);
    limits.sweep();
    assert.equal(waiting.socket.destroyed, false);
    clock.advance(1);
    limits.sweep();
    await waiting.closed;
    assert.equal(waiting.text(), WAITED_TOO_LONG);
    assert.equal(limits.open(), 0);
  });

  test("a response its client stops reading is closed after WRITE_WINDOW; reading on buys one window, not more", async (t) => {
    const clock = new FakeClock();
    const body = Buffer.alloc(64 * 1024 * 1024, "x");
    const { port, limits, sockets } = await limitedServer(t, 8, clock, (_req, res) => void res.end(body));
    const client = openRaw(port, "127.0.53.1", "GET /big HTTP/1.1\r\nHost: localhost\r\n\r\n");
    client.socket.pause();
    const server = (): Socket | undefined => sockets[0];
    const taken = (): number => {
      const socket = server();
      return socket === undefined ? 0 : bytesTaken(socket);
    };
    // Until the kernel's buffers are full and the server's socket takes nothing more.
    let last = -1;
    for (let still = 0; still < 20; still = taken() === last && taken() > 0 ? still + 1 : 0) {
      last = taken();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    limits.sweep();
    // The client reads on (2 MiB: the kernel reopens its window only after whole segments are read), then stops again:
    // that window passes with more than MIN_WRITE_RATE taken, the next one does not.
    let read = 0;
    await new Promise<void>((resolve) => {
      const reader = (chunk: string): void => {
        read += chunk.length;
        if (read < 2 * 1024 * 1024) return;
        client.socket.pause();
        client.socket.off("data", reader);
        resolve();
      };
      client.socket.on("data", reader);
      client.socket.resume();
    });
    await until(() => taken() >= last + (WRITE_WINDOW / 1000) * MIN_WRITE_RATE);
    clock.advance(WRITE_WINDOW);
    limits.sweep();
    assert.equal(server()?.destroyed, false);
    clock.advance(WRITE_WINDOW - 1);
    limits.sweep();
    assert.equal(server()?.destroyed, false);
    clock.advance(1);
    limits.sweep();
    assert.equal(server()?.destroyed, true);
    assert.equal(limits.open(), 0);
    // The connection was reset: the client, reading again, gets the end of it rather than the rest of the body.
    client.socket.resume();
    await client.closed;
    assert.ok(read + client.text().length < body.length);
  });

  test("checkWrites(): nothing pending is no window; below MIN_WRITE_RATE over a whole window is stalled", () => {
    const socket = (pending: number, written: number) => ({ writableLength: pending, bytesWritten: written }) as unknown as Socket;
    assert.equal(checkWrites(socket(0, 100), { since: 0, taken: 0 }, 50_000), undefined);
    assert.deepEqual(checkWrites(socket(10, 110), undefined, 7), { since: 7, taken: 100 });
    const rate = (WRITE_WINDOW / 1000) * MIN_WRITE_RATE;
    assert.deepEqual(checkWrites(socket(10, 10 + rate), { since: 0, taken: 0 }, WRITE_WINDOW), { since: WRITE_WINDOW, taken: rate });
    assert.equal(checkWrites(socket(10, 10 + rate - 1), { since: 0, taken: 0 }, WRITE_WINDOW), "stalled");
  });
});

/** A raw connection from `localAddress` that has written `text`; what it reads is kept. */
function openRaw(
  port: number,
  localAddress: string,
  text: string,
): { socket: Socket; text: () => string; closed: Promise<void>; response: () => Promise<string> } {
  const socket = connect({ port, host: "127.0.0.1", localAddress }, () => socket.write(text));
  let out = "";
  const readers: (() => void)[] = [];
  socket.setEncoding("latin1");
  socket.on("data", (chunk: string) => {
    out += chunk;
    for (const r of readers.splice(0)) r();
  });
  socket.on("error", () => {});
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  // Resolves once something was read (or the connection closed).
  const response = (): Promise<string> =>
    out !== "" || socket.destroyed
      ? Promise.resolve(out)
      : Promise.race([new Promise<string>((r) => readers.push(() => r(out))), closed.then(() => out)]);
  return { socket, text: () => out, closed, response };
}

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
