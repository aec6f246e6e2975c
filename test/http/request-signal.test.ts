import { describe, it, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import { Agent, request, type IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { requestSignal } from "../../lib/http/index.ts";
import { bindShutdownSignal } from "../../lib/internal/index.ts";
import { fetchHTTP } from "../_support/http.ts";
import { startServer } from "../_support/server.ts";

type Handler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

// A server whose connections are bound to `shutdown`, as `Serve` binds them.
async function listen(t: TestContext, shutdown: AbortSignal, handler: Handler): Promise<number> {
  return (await startServer(t, handler, { onConnection: (socket: Socket) => bindShutdownSignal(socket, shutdown) })).port;
}

const aborted = (signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => (signal.aborted ? resolve() : signal.addEventListener("abort", () => resolve(), { once: true })));

describe("RequestSignal()", () => {
  it("lets go of the socket and the shutdown signal once each response finishes (keep-alive)", async (t) => {
    const shutdown = new AbortController();
    const seen: { socketListeners: number; shutdownListeners: number; signal: AbortSignal }[] = [];
    const sockets = new Set<Socket>();
    const port = await listen(t, shutdown.signal, (req, res) => {
      const signal = requestSignal(req);
      assert.equal(requestSignal(req), signal, "one signal per request");
      sockets.add(req.socket);
      seen.push({
        socketListeners: req.socket.listenerCount("close"),
        shutdownListeners: getEventListeners(shutdown.signal, "abort").length,
        signal,
      });
      res.end("ok");
    });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    t.after(() => agent.destroy());
    for (let i = 0; i < 20; i++) assert.equal((await fetchHTTP(port, "/", { agent })).body, "ok");
    assert.equal(sockets.size, 1, "every request came on one connection");
    assert.deepEqual(new Set(seen.map((s) => s.socketListeners)).size, 1, "socket close listeners do not pile up");
    assert.deepEqual(
      seen.map((s) => s.shutdownListeners),
      seen.map(() => 1),
      "one shutdown listener at a time",
    );
    assert.equal(getEventListeners(shutdown.signal, "abort").length, 0, "released after the last response");
    assert.ok(
      seen.every((s) => !s.signal.aborted),
      "a finished response is not aborted",
    );
  });

  it("aborts when the client goes away mid-response, even after the body was read", async (t) => {
    let signal: AbortSignal | undefined;
    let bodyRead = (): void => {};
    const afterBody = new Promise<void>((resolve) => (bodyRead = resolve));
    const port = await listen(t, new AbortController().signal, async (req, res) => {
      signal = requestSignal(req);
      for await (const _ of req);
      res.writeHead(200);
      res.write("open");
      bodyRead();
    });
    const client = request({ host: "127.0.0.1", port, method: "POST", path: "/", agent: false });
    client.on("error", () => {});
    client.end("a body");
    const response = await new Promise<IncomingMessage>((resolve) => client.on("response", resolve));
    await afterBody;
    await new Promise<void>((resolve) => response.once("data", () => resolve()));
    assert.equal(signal?.aborted, false, "reading the body is not the client leaving");
    assert.ok(signal !== undefined);
    client.destroy();
    await aborted(signal);
  });

  it("aborts while the response is open when the server shuts down", async (t) => {
    const shutdown = new AbortController();
    let opened = (): void => {};
    const open = new Promise<void>((resolve) => (opened = resolve));
    const port = await listen(t, shutdown.signal, async (req, res) => {
      const signal = requestSignal(req);
      res.writeHead(200);
      res.write("open\n");
      assert.equal(signal.aborted, false);
      opened();
      await aborted(signal);
      res.end("bye\n");
    });
    const reply = fetchHTTP(port, "/");
    await open;
    shutdown.abort();
    const { body, complete } = await reply;
    assert.deepEqual([body, complete], ["open\nbye\n", true]);
  });
});
