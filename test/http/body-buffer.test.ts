/*
 * readBody()'s memory and work: a body sent in many small pieces costs one
 * buffer of its size (doubling from INITIAL_BODY_BUFFER), not a Buffer per
 * piece, and may come in BODY_PIECES pieces plus one per MIN_BODY_PIECE bytes. The
 * request is a real IncomingMessage fed as node:http's parser feeds it
 * (`push` per body chunk); the chunks are watched with WeakRefs and a full
 * garbage collection, exposed for this file.
 */
import assert from "node:assert/strict";
import { IncomingMessage } from "node:http";
import { Socket } from "node:net";
import { describe, test } from "node:test";
import { setImmediate as turn } from "node:timers/promises";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { readBody } from "../../lib/http/index.ts";
import { BODY_PIECES, INITIAL_BODY_BUFFER, MIN_BODY_PIECE } from "../../lib/http/body.ts";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

function request(headers: Record<string, string> = {}): IncomingMessage {
  const req = new IncomingMessage(new Socket());
  req.headers = headers;
  return req;
}

/** Pushes each chunk in a turn of its own, as node:http's parser does (each body chunk is a callback of its own), then the end. */
async function feed(req: IncomingMessage, chunks: Buffer[], end = true): Promise<void> {
  for (const chunk of chunks) {
    req.push(chunk);
    await turn();
  }
  if (end) req.push(null);
}

const pieces = (n: number, size: number): Buffer[] => Array.from({ length: n }, () => Buffer.alloc(size, "x"));

describe("readBody() memory", () => {
  test("a body buffer starts at 16 KiB (or the declared length when smaller)", () => {
    assert.equal(INITIAL_BODY_BUFFER, 16 * 1024);
  });

  test("chunks already read are copied, not kept: none is reachable while the body is still arriving", async () => {
    const req = request();
    const body = readBody(req, { limit: 1024 * 1024 });
    const watched: WeakRef<Buffer>[] = [];
    for (let i = 0; i < 2_000; i++) {
      const chunk = Buffer.alloc(MIN_BODY_PIECE, i % 256);
      watched.push(new WeakRef(chunk));
      // One chunk per turn, as segments arrive: the reader takes each chunk object itself.
      req.push(chunk);
      await turn();
    }
    await turn();
    await turn();
    gc();
    const kept = watched.filter((w) => w.deref() !== undefined).length;
    req.push(null);
    const bytes = await body;
    assert.equal(bytes.length, 2_000 * MIN_BODY_PIECE);
    assert.ok(bytes.every((b, i) => b === Math.floor(i / MIN_BODY_PIECE) % 256));
    // The last chunk or two may still sit in the stream's buffer when collected.
    assert.ok(kept <= 2, `${kept} of 2000 chunks still reachable`);
  });

  test("the body is one buffer: 20,000 small chunks read into at most twice their size", async () => {
    const req = request();
    const body = readBody(req, { limit: 8 * 1024 * 1024 });
    await feed(req, pieces(20_000, MIN_BODY_PIECE));
    const bytes = await body;
    assert.equal(bytes.toString(), "x".repeat(20_000 * MIN_BODY_PIECE));
    assert.ok(bytes.buffer.byteLength <= 2 * 20_000 * MIN_BODY_PIECE, String(bytes.buffer.byteLength));
  });

  test("a body may arrive in 64 pieces, plus one per 256 bytes", () => {
    assert.equal(BODY_PIECES, 64);
    assert.equal(MIN_BODY_PIECE, 256);
  });

  test("one-byte chunks are read up to BODY_PIECES; the next is refused with a 413 and the request is not destroyed", async () => {
    const fits = request();
    const read = readBody(fits);
    await feed(fits, pieces(BODY_PIECES, 1));
    assert.equal((await read).toString(), "x".repeat(BODY_PIECES));

    const req = request();
    const refused = assert.rejects(readBody(req), (err: Error & { code?: string; status?: number }) => {
      assert.equal(err.code, "ERR_HTTP_BODY_TOO_FRAGMENTED");
      assert.equal(err.status, 413);
      assert.match(err.message, /^read body: 65 pieces for 65 bytes \(at most 64, plus one per 256 bytes\)$/);
      return true;
    });
    await feed(req, pieces(BODY_PIECES + 1, 1), false);
    await refused;
    // Its answer is still to be sent on the request's connection.
    assert.equal(req.destroyed, false);
  });

  test("past BODY_PIECES, each MIN_BODY_PIECE bytes received allow one more piece", async () => {
    // 64 one-byte pieces, then pieces of 256 bytes: each brings its own allowance.
    const req = request();
    const read = readBody(req);
    await feed(req, [...pieces(BODY_PIECES, 1), ...pieces(100, MIN_BODY_PIECE)]);
    assert.equal((await read).length, BODY_PIECES + 100 * MIN_BODY_PIECE);
    // The same 64, then 255-byte pieces: the allowance falls behind and the body is refused.
    const short = request();
    const refused = assert.rejects(readBody(short), { code: "ERR_HTTP_BODY_TOO_FRAGMENTED" });
    await feed(short, [...pieces(BODY_PIECES, 1), ...pieces(100, MIN_BODY_PIECE - 1)]);
    await refused;
  });

  test("a declared length smaller than 16 KiB sizes the buffer; a larger one does not", async () => {
    const small = request({ "content-length": "5" });
    const read = readBody(small);
    small.push(Buffer.from("hello"));
    small.push(null);
    assert.equal((await read).toString(), "hello");
    // A client declaring 64 KiB and sending 3 bytes gets a 16 KiB buffer, not 64 KiB. Buffer's pool
    // (8 KiB on Node 22, 64 KiB on 26) would show the pool's slab instead of the buffer: none here.
    const poolSize = Buffer.poolSize;
    Buffer.poolSize = 0;
    let bytes: Buffer;
    try {
      const liar = request({ "content-length": String(64 * 1024) });
      const partial = readBody(liar);
      liar.push(Buffer.from("abc"));
      liar.push(null);
      bytes = await partial;
    } finally {
      Buffer.poolSize = poolSize;
    }
    assert.equal(bytes.toString(), "abc");
    assert.equal(bytes.buffer.byteLength, INITIAL_BODY_BUFFER);
  });
});
