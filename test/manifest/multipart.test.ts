/*
 * The bounded multipart reader of uploads (lib/manifest/multipart.ts): it hands a file's bytes on as they arrive and
 * holds at most one piece of the body plus a delimiter, whatever the file's size.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MULTIPART_HEAD_LIMIT, multipartBoundary, MultipartRefused, readFilePart } from "../../lib/manifest/multipart.ts";

const BOUNDARY = "xYzzy-42";

async function* pieces(head: string, size: number, piece: number, tail = `\r\n--${BOUNDARY}--\r\n`): AsyncGenerator<Buffer> {
  yield Buffer.from(head);
  const block = Buffer.alloc(piece, 0x41);
  for (let sent = 0; sent < size; sent += piece) yield block.subarray(0, Math.min(piece, size - sent));
  yield Buffer.from(tail);
}

const HEAD = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\n\r\n`;

describe("readFilePart", () => {
  it("streams 30 MB through while holding no more than a piece and a delimiter", async () => {
    const held = { peak: 0 };
    const piece = 64 * 1024;
    const part = await readFilePart(pieces(HEAD, 30 * 1024 * 1024, piece), BOUNDARY, held);
    assert.equal(part.name, "file");
    assert.equal(part.filename, "a.pdf");
    let total = 0;
    for await (const chunk of part.body) total += chunk.length;
    assert.equal(total, 30 * 1024 * 1024);
    assert.ok(held.peak <= piece + `\r\n--${BOUNDARY}`.length, `held ${held.peak} bytes`);
  });

  it("finds a delimiter split across pieces, and keeps bytes that only look like its start", async () => {
    async function* split(): AsyncGenerator<Buffer> {
      yield Buffer.from(HEAD + "ab\r\n--xY");
      yield Buffer.from("zz\r\n--");
      yield Buffer.from(`${BOUNDARY.slice(0, 3)}`);
      yield Buffer.from(`${BOUNDARY.slice(3)}--\r\n`);
    }
    const part = await readFilePart(split(), BOUNDARY);
    const out: Buffer[] = [];
    for await (const chunk of part.body) out.push(chunk);
    assert.equal(Buffer.concat(out).toString(), "ab\r\n--xYzz");
  });

  it("refuses a body without its closing delimiter, a second part, and headers past MULTIPART_HEAD_LIMIT", async () => {
    const drain = async (source: AsyncGenerator<Buffer>): Promise<void> => {
      for await (const _ of (await readFilePart(source, BOUNDARY)).body);
    };
    await assert.rejects(drain(pieces(HEAD, 10, 10, "")), MultipartRefused);
    await assert.rejects(drain(pieces(HEAD, 10, 10, `\r\n--${BOUNDARY}\r\n`)), MultipartRefused);
    const long = `--${BOUNDARY}\r\nX-Pad: ${"p".repeat(MULTIPART_HEAD_LIMIT)}\r\n\r\n`;
    await assert.rejects(drain(pieces(long, 1, 1)), MultipartRefused);
    assert.equal(MULTIPART_HEAD_LIMIT, 8 * 1024);
  });

  it("reads the boundary of a multipart/form-data type only", () => {
    assert.equal(multipartBoundary(`multipart/form-data; boundary=${BOUNDARY}`), BOUNDARY);
    assert.equal(multipartBoundary(`multipart/form-data; boundary="a b"`), "a b");
    assert.equal(multipartBoundary("application/x-www-form-urlencoded"), undefined);
    assert.equal(multipartBoundary(`multipart/form-data; boundary=${"a".repeat(71)}`), undefined);
  });
});
