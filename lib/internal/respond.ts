// The answers every component gives for a refusal, so Content-Type and length are the same everywhere.
import { setImmediate } from "node:timers/promises";
import type { IncomingMessage, ServerResponse } from "node:http";

/** Where `writeErrorPage` answers: the app's error page (the runtime's `Ctx.ErrorPage`) and the logger for its reference. */
export interface ErrorPageTarget {
  readonly ErrorPage?: ((req: IncomingMessage, res: ServerResponse, status: number, ref: string) => void) | undefined;
  readonly Logger?:
    | {
        info(msg: string, attrs?: Readonly<Record<string, unknown>>): void;
        error(msg: string, attrs?: Readonly<Record<string, unknown>>): void;
      }
    | undefined;
}

/** Ends `res` with a plain-text message and a newline; `nosniff` adds `X-Content-Type-Options: nosniff` (as Go's `http.Error`) where the runtime's headers may be missing. */
export function writeText(res: ServerResponse, status: number, text: string, options: { nosniff?: boolean } = {}): void {
  const body = text + "\n";
  res.statusCode = status;
  res.setHeader("Content-Type", "text/plain; charset=utf-8");
  if (options.nosniff === true) res.setHeader("X-Content-Type-Options", "nosniff");
  res.setHeader("Content-Length", Buffer.byteLength(body));
  res.end(body);
}

/**
 * The one error answer: `status` through `target.ErrorPage` with `ref`,
 * logged next to `message` and `logged` (SPEC §2.2), else (or when the page
 * throws before its first byte) the plain text `message`: keep secrets and
 * raw client input out of it.
 */
export function writeErrorPage(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  message: string,
  target: ErrorPageTarget | undefined,
  ref: string,
  logged: Readonly<Record<string, unknown>> = {},
): void {
  // A body not all arrived (refused by a reader, or never read) is not read on: the answer closes the connection (lib/runtime/README.md#connections).
  if (!req.complete) res.setHeader("Connection", "close");
  if (target?.ErrorPage !== undefined) {
    target.Logger?.info("error page", { ref, status, reason: message, path: (req.url ?? "").split("?")[0], ...logged });
    try {
      target.ErrorPage(req, res, status, ref);
      if (!res.writableEnded) res.end();
      return;
    } catch (pageErr) {
      target.Logger?.error("error page failed", { ref, error: pageErr });
      if (res.headersSent) return void res.destroy();
    }
  }
  writeText(res, status, message);
}

/** How long a download waits for the client to take its bytes (`drain`, or the last ones' `finish`) before the connection is destroyed: 30 s (issue 36: unread downloads pinned 2 GB). */
export const DOWNLOAD_WRITE_TIMEOUT: number = 30_000;

/** Writes `chunk` and resolves once `res` takes more: true, or false when the client has gone, the socket closed or errored, or `drain` did not come within `timeout` ms (then destroyed). */

export async function writeChunk(res: ServerResponse, chunk: string, timeout: number = DOWNLOAD_WRITE_TIMEOUT): Promise<boolean> {
  if (res.destroyed) return false;
  if (!res.write(chunk)) await settled(res, "drain", timeout);
  // OWASP ASVS 5.0 §13.1.3 (resource management): a socket that takes each chunk at once (a fast reader on loopback)
  // never asks for 'drain', and the download's next piece would follow in the same turn: one export held every other
  // request for seconds. The event loop turns between any two pieces.
  else await setImmediate();
  return !res.destroyed;
}

/** Ends `res` with `last`, and destroys it when the client has not taken every byte within `timeout` ms. */
export async function endChunks(res: ServerResponse, last: string, timeout: number = DOWNLOAD_WRITE_TIMEOUT): Promise<void> {
  if (res.destroyed) return;
  const finished = settled(res, "finish", timeout);
  res.end(last);
  await finished;
}

// Resolves on `event`, or when `res` closes or errors; destroys `res` past `timeout` ms (one deadline for every wait of a download).
function settled(res: ServerResponse, event: "drain" | "finish", timeout: number): Promise<void> {
  return new Promise((resolve) => {
    const deadline = setTimeout(() => res.destroy(), timeout);
    const done = (): void => {
      clearTimeout(deadline);
      res.off(event, done);
      res.off("close", done);
      res.off("error", done);
      resolve();
    };
    res.on(event, done);
    res.on("close", done);
    res.on("error", done);
  });
}
