/*
 * The deadlines of a request *waiting* on something outside the process and
 * of a response its client does not read (lib/runtime/README.md,
 * "Connections"); connection-limits.ts enforces them.
 */
import type { Socket } from "node:net";

/** The fraction of `MaxConnections` that waiting requests may hold together. */
export const WAIT_SHARE: number = 0.25;

/** Milliseconds a request may wait on something outside: twice a client metadata fetch's own limit (5 s). */
export const WAIT_DEADLINE: number = 10_000;

/** Milliseconds in which a response with bytes pending must have had MIN_WRITE_RATE bytes a second taken by its client. */
export const WRITE_WINDOW: number = 10_000;

/** Bytes per second a client must take, over each WRITE_WINDOW its response has bytes pending, or its connection is closed. */
export const MIN_WRITE_RATE: number = 500;

/** What a request past WAIT_DEADLINE reads (when its response has not begun) before the server closes it. */
export const WAITED_TOO_LONG: string =
  "HTTP/1.1 504 Gateway Timeout\r\nConnection: close\r\nRetry-After: 5\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 50\r\n\r\nThe server waited too long for another server. :(\n";

/** A window in which a response had bytes pending: when it began and how many bytes the client had taken then. */
export interface WriteWindow {
  since: number;
  taken: number;
}

/**
 * Checks the response bytes pending on `socket` at `at` (ms): returns the
 * window to keep (undefined when nothing is pending), or "stalled" when
 * a whole WRITE_WINDOW passed with less than MIN_WRITE_RATE bytes a second
 * taken. Each window starts afresh: a fast start buys no time later.
 */
export function checkWrites(socket: Socket, window: WriteWindow | undefined, at: number): WriteWindow | undefined | "stalled" {
  if (socket.writableLength === 0) return undefined;
  const taken = bytesTaken(socket);
  if (window === undefined) return { since: at, taken };
  const elapsed = at - window.since;
  if (elapsed < WRITE_WINDOW) return window;
  // OWASP ASVS 5.0 §13.1.3 (resource management): a response its client does not read may not hold memory and a connection.
  if (taken - window.taken < (elapsed / 1000) * MIN_WRITE_RATE) return "stalled";
  return { since: at, taken };
}

/**
 * The bytes of `socket`'s writes the kernel has taken. `bytesWritten` counts
 * what is still pending too, and `writableLength` counts a write as pending
 * until all of it is sent: node:net hands a large write (`res.end(body)`) to
 * libuv whole, and libuv sends it as the client reads. What libuv has left of
 * the write in flight (`writeQueueSize` of the socket's handle, beside the
 * write's length in the stream's state) tells how far it got; both are
 * Node's own fields, not documented API, so without them the count is of
 * completed writes only (a client that reads is then cut only during a write
 * larger than a window's MIN_WRITE_RATE).
 */
export function bytesTaken(socket: Socket): number {
  const completed = socket.bytesWritten - socket.writableLength;
  const handle = (socket as { _handle?: { writeQueueSize?: unknown } | null })._handle;
  const state = (socket as { _writableState?: { writing?: unknown; writelen?: unknown } })._writableState;
  const left = handle?.writeQueueSize;
  if (state?.writing !== true || typeof state.writelen !== "number" || typeof left !== "number") return completed;
  return completed + Math.max(0, state.writelen - left);
}
