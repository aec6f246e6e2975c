/*
 * A bounded, streaming reader of a multipart/form-data body holding one file (RFC 7578; RFC 2046 §5.1.1 for the
 * delimiters). The file's bytes are handed on as they arrive: the reader holds at most one piece of the request plus a
 * delimiter's length (or the part's headers, at most MULTIPART_HEAD_LIMIT), never the file (OWASP ASVS 5.0 §5.2.1).
 * Node's `Request.formData()` reads the whole body into memory first, so latch does not use it for uploads.
 */
import { rmSync } from "node:fs";
import { open } from "node:fs/promises";
import type { IncomingMessage } from "node:http";

/** The most bytes of preamble and part headers before the file's bytes start: 8 KiB. */
export const MULTIPART_HEAD_LIMIT: number = 8 * 1024;

/** An upload refused as it is read: the reason and the status to answer (400 malformed, 413 too large, 415 not multipart). */
export class MultipartRefused extends Error {
  readonly status: 400 | 413 | 415;
  constructor(message: string, status: 400 | 413 | 415 = 400) {
    super(message);
    this.status = status;
  }
}

/** The file part of a multipart body: the field name and file name given, its bytes as they arrive. */
export interface FilePart {
  readonly name: string;
  readonly filename: string;
  /** The part's bytes; throws MultipartRefused when the body ends without its closing delimiter or holds a second part. */
  readonly body: AsyncGenerator<Buffer>;
}

/** The boundary of a `multipart/form-data` Content-Type, or undefined for any other type or a malformed boundary. */
export function multipartBoundary(contentType: string | undefined): string | undefined {
  const match = /^\s*multipart\/form-data\s*;(?:.*;)?\s*boundary=(?:"([^"]{1,70})"|([^\s;"]{1,70}))\s*(?:;.*)?$/i.exec(contentType ?? "");
  const boundary = match?.[1] ?? match?.[2];
  // RFC 2046 §5.1.1: 1 to 70 characters of bchars, not ending in a space.
  return boundary !== undefined && /^[0-9A-Za-z'()+_,./:=? -]*[0-9A-Za-z'()+_,./:=?-]$/.test(boundary) ? boundary : undefined;
}

/**
 * The part named "file" of `req`, a multipart/form-data upload of a file of at most `cap` bytes, its bytes not read yet;
 * throws MultipartRefused: 415 for another body, 413 for a body declared larger, 400 for a malformed one or another part.
 */
export async function readUpload(req: IncomingMessage, cap: number): Promise<FilePart> {
  const boundary = multipartBoundary(req.headers["content-type"]);
  if (boundary === undefined) throw new MultipartRefused("the body must be multipart/form-data with a boundary", 415);
  // OWASP ASVS 5.0 §5.2.1: a body declared larger than the cap allows is refused before a byte of it is read.
  if (declaredLength(req) > cap + MULTIPART_HEAD_LIMIT * 2) throw new MultipartRefused(`larger than ${cap} bytes`, 413);
  const part = await readFilePart(req.iterator({ destroyOnReturn: false }), boundary);
  if (part.name !== "file") throw new MultipartRefused('the part must be named "file"');
  return part;
}

/**
 * Streams `chunks` (an upload's file) to a new file at `path`, each chunk handed to `inspect` before it is written;
 * throws `tooLarge()` as soon as they pass `limit` bytes. Whatever is thrown, the partial file is removed. Returns the size.
 */
export async function writeUploadFile(
  chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  path: string,
  limit: number,
  tooLarge: () => Error,
  inspect: (chunk: Uint8Array) => void = () => undefined,
): Promise<number> {
  // OWASP ASVS 5.0 §5.3.1: created (never an existing file), readable by the application's user alone, closed however it ends.
  const file = await open(path, "wx", 0o600);
  let size = 0;
  try {
    for await (const chunk of chunks) {
      size += chunk.length;
      // OWASP ASVS 5.0 §5.2.1: the cap is checked as the bytes arrive, never after they are all held.
      if (size > limit) throw tooLarge();
      inspect(chunk);
      await file.write(chunk);
    }
  } catch (e) {
    await file.close();
    rmSync(path, { force: true });
    throw e;
  }
  await file.close();
  return size;
}

/** The Content-Length `req` declares, 0 when it declares none (a chunked body). */
export function declaredLength(req: IncomingMessage): number {
  return Number(req.headers["content-length"] ?? "0");
}

/**
 * Reads `source` (a request's pieces) as a multipart body delimited by `boundary` whose one part is a file; `held`, when
 * given, learns the most bytes the reader held at once (README "Attachments": the bound a test checks).
 */
export async function readFilePart(source: AsyncIterable<Buffer>, boundary: string, held?: { peak: number }): Promise<FilePart> {
  const pieces = source[Symbol.asyncIterator]();
  let buf: Buffer = Buffer.alloc(0);
  const more = async (): Promise<boolean> => {
    const next = await pieces.next();
    if (next.done === true) return false;
    buf = buf.length === 0 ? next.value : Buffer.concat([buf, next.value]);
    if (held !== undefined) held.peak = Math.max(held.peak, buf.length);
    return true;
  };
  // Up to `marker`, within the head limit: the bytes before it, and `buf` left after it.
  const until = async (marker: string, what: string): Promise<Buffer> => {
    for (;;) {
      const at = buf.indexOf(marker);
      if (at >= 0 && at <= MULTIPART_HEAD_LIMIT) {
        const before = buf.subarray(0, at);
        buf = buf.subarray(at + marker.length);
        return before;
      }
      if (buf.length > MULTIPART_HEAD_LIMIT + marker.length)
        throw new MultipartRefused(`${what} longer than ${MULTIPART_HEAD_LIMIT} bytes`);
      if (!(await more())) throw new MultipartRefused(`the body ends before ${what}`);
    }
  };
  // RFC 2046 §5.1.1: the first delimiter may follow a preamble, which is ignored.
  await until(`--${boundary}\r\n`, "the first boundary");
  const headers = (await until("\r\n\r\n", "the part's headers")).toString("utf8");
  const disposition = /^content-disposition:\s*form-data\s*;(.*)$/im.exec(headers)?.[1] ?? "";
  const param = (key: string): string | undefined => new RegExp(`(?:^|;)\\s*${key}="([^"]*)"`, "i").exec(disposition)?.[1];
  const name = param("name");
  const filename = param("filename");
  if (name === undefined || filename === undefined)
    throw new MultipartRefused("the part is not a file (Content-Disposition: form-data; name; filename)");
  return { name, filename, body: bytesUntil(`\r\n--${boundary}`) };

  async function* bytesUntil(delimiter: string): AsyncGenerator<Buffer> {
    for (;;) {
      const at = buf.indexOf(delimiter);
      if (at >= 0) {
        if (at > 0) yield buf.subarray(0, at);
        buf = buf.subarray(at + delimiter.length);
        while (buf.length < 2) if (!(await more())) throw new MultipartRefused("the body ends inside its closing boundary");
        // RFC 2046 §5.1.1: "--" closes the body (an epilogue after it is ignored); anything else starts another part.
        if (buf[0] !== 0x2d || buf[1] !== 0x2d) throw new MultipartRefused("one file per request: a second part follows");
        return;
      }
      // Everything but what could be the start of the delimiter goes on now.
      const keep = delimiter.length - 1;
      if (buf.length > keep) {
        yield buf.subarray(0, buf.length - keep);
        buf = Buffer.from(buf.subarray(buf.length - keep));
      }
      if (!(await more())) throw new MultipartRefused("the body ends before its closing boundary");
    }
  }
}
