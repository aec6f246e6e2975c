/*
 * readBody()'s memory: a body sent in many small pieces costs one buffer of
 * its size (doubling from INITIAL_BODY_BUFFER), not a Buffer per piece. The
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
import { INITIAL_BODY_BUFFER } from "../../lib/http/body.ts";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

function request(headers: Record<string, string> = {}): IncomingMessage {
  const req = new IncomingMessage(new Socket());
  req.headers = headers;
  return req;
}

describe("readBody() memory", () => {
  test("a body buffer starts at 16 KiB (or the declared length when smaller)", () => {
    assert.equal(INITIAL_BODY_BUFFER, 16 * 1024);
  });

  test("chunks already read are copied, not kept: none is reachable while the body is still arriving", async () => {
    const req = request();
    const body = readBody(req, { limit: 1024 * 1024 });
    const watched: WeakRef<Buffer>[] = [];
    for (let i = 0; i < 2_000; i++) {
      const chunk = Buffer.from([i % 256]);
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
    assert.equal(bytes.length, 2_000);
    assert.ok(bytes.every((b, i) => b === i % 256));
    // The last chunk or two may still sit in the stream's buffer when collected.
    assert.ok(kept <= 2, `${kept} of 2000 chunks still reachable`);
  });

  test("the body is one buffer: 20,000 one-byte chunks read into at most twice their size", async () => {
    const req = request();
    const body = readBody(req, { limit: 1024 * 1024 });
    for (let i = 0; i < 20_000; i++) req.push(Buffer.from("x"));
    req.push(null);
    const bytes = await body;
    assert.equal(bytes.toString(), "x".repeat(20_000));
    assert.ok(bytes.buffer.byteLength <= 2 * 20_000, String(bytes.buffer.byteLength));
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
