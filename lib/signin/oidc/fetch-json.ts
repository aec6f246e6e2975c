/*
 * The one way this module talks to the provider: `fetch` with a deadline, a size cap and JSON parsing.
 * Error statuses are still parsed (OAuth error bodies are JSON, RFC 6749 §5.2); the caller reads them.
 */
import { OIDCError } from "./errors.ts";

/** Largest provider response read, in bytes. Discovery documents and key sets are a few KiB. */
export const MAX_RESPONSE_BYTES: number = 256 * 1024;

/** A request to the provider. */
export interface JSONRequest {
  /** Aborts the request (timeouts come from `AbortSignal.timeout`). */
  signal: AbortSignal;
  /** A form body; the request is then a POST. */
  form?: URLSearchParams;
  /** Whether to follow redirects. @default false */
  followRedirects?: boolean;
}

/** A provider's answer: its status and parsed JSON body. */
export interface JSONResponse {
  status: number;
  body: unknown;
}

/**
 * Fetches `url` and parses its JSON. Throws `OIDCError`: `ERR_SIGNIN_OIDC_UNREACHABLE` (network, timeout),
 * `ERR_SIGNIN_OIDC_BAD_RESPONSE` (not JSON within the cap); messages name origin and path, never a query.
 */
export async function fetchJSON(url: URL, request: JSONRequest): Promise<JSONResponse> {
  const where = `${url.origin}${url.pathname}`;
  let res: Response;
  try {
    const form = request.form;
    res = await fetch(url, {
      method: form === undefined ? "GET" : "POST",
      headers: { accept: "application/json", ...(form !== undefined && { "content-type": "application/x-www-form-urlencoded" }) },
      redirect: request.followRedirects === true ? "follow" : "error",
      signal: request.signal,
      ...(form !== undefined && { body: form.toString() }),
    });
  } catch (cause) {
    throw new OIDCError("ERR_SIGNIN_OIDC_UNREACHABLE", `fetch ${where}: provider unreachable`, { cause });
  }
  const text = await readCapped(res, where);
  try {
    return { status: res.status, body: JSON.parse(text) };
  } catch (cause) {
    throw new OIDCError("ERR_SIGNIN_OIDC_BAD_RESPONSE", `fetch ${where}: body is not JSON (status ${res.status})`, { cause });
  }
}

async function readCapped(res: Response, where: string): Promise<string> {
  const declared = Number(res.headers.get("content-length") ?? "0");
  if (declared > MAX_RESPONSE_BYTES || res.body === null) {
    await res.body?.cancel();
    if (res.body === null) return "";
    throw new OIDCError("ERR_SIGNIN_OIDC_BAD_RESPONSE", `fetch ${where}: response too large`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > MAX_RESPONSE_BYTES) {
        await reader.cancel();
        throw new OIDCError("ERR_SIGNIN_OIDC_BAD_RESPONSE", `fetch ${where}: response too large`);
      }
      chunks.push(value);
    }
  } catch (cause) {
    if (cause instanceof OIDCError) throw cause;
    throw new OIDCError("ERR_SIGNIN_OIDC_UNREACHABLE", `fetch ${where}: reading the body failed`, { cause });
  }
  return Buffer.concat(chunks).toString("utf8");
}
