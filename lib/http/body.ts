/*
 * Request-body readers with a size limit. Every failure is an `HTTPError`
 * carrying a 4xx status, so a handler can let it propagate and the
 * panic-recovery middleware answers 413, 415 or 400 with a clear message
 * instead of a 500.
 */
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

/**
 * Reads the raw body, refusing more than `limit` bytes (413). A declared
 * `Content-Length` over the limit is refused before reading.
 */
export async function readBody(req: IncomingMessage, options: BodyOptions = {}): Promise<Buffer> {
  const limit = options.limit ?? DEFAULT_BODY_LIMIT;
  const declared = Number(req.headers["content-length"] ?? "0");
  if (declared > limit) throw tooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req) {
      const buf: Buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
      size += buf.length;
      if (size > limit) {
        req.resume();
        throw tooLarge(limit);
      }
      chunks.push(buf);
    }
  } catch (err) {
    if (isLatchError(err)) throw err;
    // The client went away mid-body: nobody is left to answer, and it is not
    // a server fault to log as a panic (anyone could flood the log so).
    throw ErrAbortHandler;
  }
  return Buffer.concat(chunks);
}

function tooLarge(limit: number): HTTPError {
  return new HTTPError("ERR_HTTP_BODY_TOO_LARGE", `read body: larger than ${limit} bytes`, { status: 413 });
}

/**
 * Reads an `application/x-www-form-urlencoded` body. Throws `HTTPError`
 * with status 415 for another content type, 413 when over the limit.
 */
export async function readForm(req: IncomingMessage, options: BodyOptions = {}): Promise<URLSearchParams> {
  if (mediaType(req) !== "application/x-www-form-urlencoded") {
    throw new HTTPError("ERR_HTTP_UNSUPPORTED_MEDIA_TYPE", "read form: expected application/x-www-form-urlencoded", {
      status: 415,
    });
  }
  const body = await readBody(req, options);
  return new URLSearchParams(body.toString("utf8"));
}

/**
 * Reads a JSON body as `unknown` (narrow it before use). Throws `HTTPError`
 * with status 415 for another content type, 413 when over the limit, 400
 * when it does not parse.
 */
export async function readJSON(req: IncomingMessage, options: BodyOptions = {}): Promise<unknown> {
  const type = mediaType(req);
  if (type !== "application/json" && !type.endsWith("+json")) {
    throw new HTTPError("ERR_HTTP_UNSUPPORTED_MEDIA_TYPE", "read json: expected application/json", { status: 415 });
  }
  const body = await readBody(req, options);
  try {
    return JSON.parse(body.toString("utf8")) as unknown;
  } catch (cause) {
    throw new HTTPError("ERR_HTTP_MALFORMED_BODY", "read json: body is not valid JSON", { status: 400, cause });
  }
}
