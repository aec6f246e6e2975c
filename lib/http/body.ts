// Request-body readers with a size limit: every failure is an `HTTPError` with a 4xx, which panic recovery answers.
import type { IncomingMessage } from "node:http";
import { ErrAbortHandler, HTTPError, isLatchError } from "./errors.ts";
import { mediaType } from "../internal/index.ts";

/** Default body limit for forms and JSON: 64 KiB. */
export const DEFAULT_BODY_LIMIT: number = 64 * 1024;

/** Options of the body readers. */
export interface BodyOptions {
  /** Maximum body size in bytes. @default DEFAULT_BODY_LIMIT */
  limit?: number;
}

/** Bytes a body buffer starts with, unless the declared length is smaller; it doubles as the body grows. */
export const INITIAL_BODY_BUFFER: number = 16 * 1024;

/** Pieces a body may arrive in before MIN_BODY_PIECE applies (a piece: one read of the socket, or one chunk of a chunked body). */
export const BODY_PIECES: number = 64;

/** Bytes a body's pieces must average past BODY_PIECES: each MIN_BODY_PIECE bytes received allow one more piece. */
export const MIN_BODY_PIECE: number = 256;

/**
 * Reads the raw body, refusing more than `limit` bytes (413, a declared
 * length before reading) or more than BODY_PIECES pieces plus one per
 * MIN_BODY_PIECE bytes (413). Chunks are copied into one buffer that doubles
 * as needed, so many small pieces cost the body's size, not a Buffer each.
 */
export async function readBody(req: IncomingMessage, options: BodyOptions = {}): Promise<Buffer> {
  const limit = options.limit ?? DEFAULT_BODY_LIMIT;
  const declared = Number(req.headers["content-length"] ?? "0");
  if (declared > limit) throw tooLarge(limit);
  // A declared length only sizes the start: the bytes must arrive before the buffer grows past them.
  let body: Buffer = Buffer.allocUnsafe(Math.min(limit, declared > 0 ? declared : INITIAL_BODY_BUFFER, INITIAL_BODY_BUFFER));
  let size = 0;
  let pieces = 0;
  try {
    // Leaving the loop early must not destroy the request: its 413 is still to be sent.
    for await (const chunk of req.iterator({ destroyOnReturn: false })) {
      const buf: Buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
      if (size + buf.length > limit) throw tooLarge(limit);
      // OWASP ASVS 5.0 §13.1.3 (resource management): the work a body costs is bounded by its size, as its memory is.
      if (++pieces > BODY_PIECES + Math.floor((size + buf.length) / MIN_BODY_PIECE)) throw tooFragmented(pieces, size + buf.length);
      if (size + buf.length > body.length) body = grown(body, size, Math.min(limit, Math.max(size + buf.length, body.length * 2)));
      size += buf.copy(body, size);
    }
  } catch (err) {
    if (isLatchError(err)) throw err;
    // The client went away mid-body: nobody is left to answer, and no server fault to log (anyone could flood the log so).
    throw ErrAbortHandler;
  }
  return body.subarray(0, size);
}

// A buffer of `capacity` bytes holding the first `size` bytes of `body`.
function grown(body: Buffer, size: number, capacity: number): Buffer {
  const next = Buffer.allocUnsafe(capacity);
  body.copy(next, 0, 0, size);
  return next;
}

function tooLarge(limit: number): HTTPError {
  return new HTTPError("ERR_HTTP_BODY_TOO_LARGE", `read body: larger than ${limit} bytes`, { status: 413 });
}

function unsupported(message: string): HTTPError {
  return new HTTPError("ERR_HTTP_UNSUPPORTED_MEDIA_TYPE", message, { status: 415 });
}

function tooFragmented(pieces: number, size: number): HTTPError {
  return new HTTPError(
    "ERR_HTTP_BODY_TOO_FRAGMENTED",
    `read body: ${pieces} pieces for ${size} bytes (at most ${BODY_PIECES}, plus one per ${MIN_BODY_PIECE} bytes)`,
    { status: 413 },
  );
}

/**
 * Reads an `application/x-www-form-urlencoded` body. Throws `HTTPError`
 * with status 415 for another content type, 413 when over the limit.
 */
export async function readForm(req: IncomingMessage, options: BodyOptions = {}): Promise<URLSearchParams> {
  if (mediaType(req) !== "application/x-www-form-urlencoded") throw unsupported("read form: expected application/x-www-form-urlencoded");
  return new URLSearchParams((await readBody(req, options)).toString("utf8"));
}

/**
 * Reads a JSON body as `unknown` (narrow it before use). Throws `HTTPError`
 * with status 415 for another content type, 413 when over the limit, 400
 * when it does not parse.
 */
export async function readJSON(req: IncomingMessage, options: BodyOptions = {}): Promise<unknown> {
  const type = mediaType(req);
  if (type !== "application/json" && !type.endsWith("+json")) throw unsupported("read json: expected application/json");
  const body = await readBody(req, options);
  try {
    return JSON.parse(body.toString("utf8")) as unknown;
  } catch (cause) {
    throw new HTTPError("ERR_HTTP_MALFORMED_BODY", "read json: body is not valid JSON", { status: 400, cause });
  }
}
