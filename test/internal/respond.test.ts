import assert from "node:assert/strict";
import type { ServerResponse } from "node:http";
import { connect, type Socket } from "node:net";
import { describe, it, type TestContext } from "node:test";
import { DOWNLOAD_WRITE_TIMEOUT, endChunks, writeChunk, writeText } from "../../lib/internal/index.ts";
import { sendRequest } from "../_support/http-client.ts";
import { startServer } from "../_support/server.ts";

// The one plain-text answer: the router's, the asset handler's and every component's refusals are written by it.
describe("writeText", () => {
  it("answers the message and a newline as plain text with its length, and no nosniff unless asked", async (t) => {
    const { base } = await startServer(t, (_req, res) => writeText(res, 403, "403 forbidden: cross-origin request refused"));
    const r = await sendRequest(base, "GET", "/", {}, base);
    assert.equal(r.status, 403);
    assert.equal(r.body, "403 forbidden: cross-origin request refused\n");
    assert.equal(r.headers["content-type"], "text/plain; charset=utf-8");
    assert.equal(r.headers["content-length"], String(Buffer.byteLength(r.body)));
    assert.equal(r.headers["x-content-type-options"], undefined);
  });

  it("adds X-Content-Type-Options: nosniff when asked, as Go's http.Error (the router and the asset handler)", async (t) => {
    const { base } = await startServer(t, (_req, res) => writeText(res, 404, "404 page not found — ü", { nosniff: true }));
    const r = await sendRequest(base, "GET", "/", {}, base);
    assert.equal(r.status, 404);
    assert.equal(r.body, "404 page not found — ü\n");
    assert.equal(r.headers["content-type"], "text/plain; charset=utf-8");
    assert.equal(r.headers["content-length"], String(Buffer.byteLength(r.body)));
    assert.equal(r.headers["x-content-type-options"], "nosniff");
  });
});

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

// A download to a client that never reads: the server writes until its own buffer holds 4 MB the kernel would not take.
async function unread(t: TestContext): Promise<{ res: ServerResponse; client: Socket }> {
  let answer!: (res: ServerResponse) => void;
  const answered = new Promise<ServerResponse>((resolve) => (answer = resolve));
  const { port } = await startServer(t, (_req, res) => answer(res));
  const client = connect(port, "127.0.0.1");
  t.after(() => client.destroy());
  client.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
  const res = await answered;
  const megabyte = "x".repeat(1 << 20);
  while (res.writableLength < 4 << 20) {
    res.write(megabyte);
    await settle();
  }
  return { res, client };
}

// One home of the download's write deadline (issue 36: unread downloads held their connection and memory forever).
describe("writeChunk, endChunks", () => {
  it(`destroy the connection of a client that takes nothing for DOWNLOAD_WRITE_TIMEOUT (${DOWNLOAD_WRITE_TIMEOUT} ms), and settle false`, async (t) => {
    assert.equal(DOWNLOAD_WRITE_TIMEOUT, 30_000);
    t.mock.timers.enable({ apis: ["setTimeout"] });
    const { res, client } = await unread(t);
    const closed = new Promise<void>((resolve) => client.once("close", () => resolve()));
    let settled: boolean | undefined;
    void writeChunk(res, "more").then((more) => (settled = more));
    t.mock.timers.tick(DOWNLOAD_WRITE_TIMEOUT - 1);
    for (let i = 0; i < 5; i++) await settle();
    assert.equal(settled, undefined, "still waiting before the deadline");
    assert.equal(res.destroyed, false);
    t.mock.timers.tick(1);
    for (let i = 0; i < 50 && settled === undefined; i++) await settle();
    assert.equal(settled, false, "the loop is told to stop");
    assert.equal(res.destroyed, true);
    client.resume();
    await closed;
  });

  it("cut the last bytes a client never takes at the same deadline", async (t) => {
    t.mock.timers.enable({ apis: ["setTimeout"] });
    const { res } = await unread(t);
    let ended = false;
    void endChunks(res, "]}\n").then(() => (ended = true));
    t.mock.timers.tick(DOWNLOAD_WRITE_TIMEOUT);
    for (let i = 0; i < 50 && !ended; i++) await settle();
    assert.ok(ended && res.destroyed, "destroyed, and the handler goes on");
  });

  it("settle false as soon as the client goes away, and true while it reads", async (t) => {
    const { res, client } = await unread(t);
    const waiting = writeChunk(res, "more");
    client.destroy();
    assert.equal(await waiting, false);
    assert.equal(await writeChunk(res, "after"), false, "nothing is written to a gone client");

    let answer!: (res: ServerResponse) => void;
    const answered = new Promise<ServerResponse>((resolve) => (answer = resolve));
    const { base } = await startServer(t, (_req, r) => answer(r));
    const reply = sendRequest(base, "GET", "/", {}, base);
    const reading = await answered;
    assert.equal(await writeChunk(reading, "x".repeat(1 << 20)), true);
    await endChunks(reading, "end");
    assert.equal((await reply).body.length, (1 << 20) + 3);
  });

  // A trial of the demo: one 19 MB export held /healthz for 5 s, its pieces taken at once by a fast reader, never a 'drain'.
  it("let the event loop turn after a piece the socket took at once, so other requests are answered between pieces", async (t) => {
    let answer!: (res: ServerResponse) => void;
    const answered = new Promise<ServerResponse>((resolve) => (answer = resolve));
    const { base } = await startServer(t, (_req, r) => answer(r));
    const reply = sendRequest(base, "GET", "/", {}, base);
    const res = await answered;
    let turned = false;
    setImmediate(() => (turned = true));
    assert.equal(await writeChunk(res, "small"), true);
    assert.ok(turned, "a callback queued for the next turn ran before the next piece");
    await endChunks(res, "");
    assert.equal((await reply).body, "small");
  });
});
