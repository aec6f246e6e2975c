/*
 * Connection limits for `Serve`: a bound on open connections that keeps
 * the process inside its file limit, a per-client bound, a receive-rate
 * floor for request bodies and a share of the cap for event streams, so
 * that no flood of slow, idle or long-lived connections starves `/healthz`
 * and ordinary requests. The policy, in lib/runtime/README.md
 * ("Connections"):
 *
 * - A connection is *idle* while no request of its is being handled:
 *   before its first request head is complete (a slow-header client), and
 *   between keep-alive requests. It is *uploading* while its request's body
 *   is still arriving, and *streaming* once its response is an event stream.
 * - At `MaxConnections`, a new connection evicts whichever is nearer its
 *   deadline: the connection idle longest (its head is due HeadersTimeout
 *   after it became idle; it loses nothing), or the upload nearest its body
 *   deadline (it reads a 503). Only when every connection is handling a
 *   request whose body has arrived is the newcomer refused with a 503.
 * - A request body has BODY_GRACE, then one more second for every
 *   MIN_BODY_RATE bytes received; an upload past that deadline reads a 408
 *   and is closed (the check runs every `sweep`).
 * - Event streams hold at most STREAM_SHARE of `MaxConnections`; one more
 *   ends the oldest stream (its browser reconnects after `retry:`).
 * - A client (`clientKey`: an IPv4 address, or an IPv6 /64) at
 *   `MaxConnectionsPerClient` open connections is refused with a 503.
 *   Unix-socket connections carry no address and only count toward the total.
 */
import { readFileSync } from "node:fs";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Clock, HandlerFunc, Logger } from "../http/index.ts";
import { bindStreamWatcher, clientKey } from "../internal/index.ts";

/** File descriptors kept free of connections: the database and its WAL, logs, the listener, workers. */
export const RESERVED_FILES: number = 128;

/** The file limit assumed when `/proc/self/limits` cannot be read (a common soft default). */
export const FALLBACK_FILE_LIMIT: number = 1024;

/** Open connections one client (an IPv4 address, an IPv6 /64) may hold at once. */
export const DEFAULT_MAX_CONNECTIONS_PER_CLIENT: number = 64;

/** Milliseconds a request body may take before MIN_BODY_RATE applies (the head's own timeout is HeadersTimeout). */
export const BODY_GRACE: number = 10_000;

/** Bytes per second a request body must average after BODY_GRACE: each MIN_BODY_RATE bytes received buy one more second. */
export const MIN_BODY_RATE: number = 500;

/** The fraction of `MaxConnections` that event streams may hold together. */
export const STREAM_SHARE: number = 0.5;

/** Milliseconds between two log lines of one kind ("connection refused", "connection cut"): a flood must not become a log flood. */
const WARN_EVERY = 10_000;

/** What a refused or evicted connection reads before the server closes it. */
export const REFUSAL: string =
  "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nRetry-After: 5\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 25\r\n\r\nToo many connections. :(\n";

/** What an upload past its body deadline reads before the server closes it. */
export const BODY_TOO_SLOW: string =
  "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 40\r\n\r\nThe request body arrived too slowly. :(\n";

/**
 * Reads the soft open-files limit of this process from `/proc/self/limits`
 * (Linux; Node has no getrlimit). "unlimited" reads as Infinity; anywhere
 * the file is missing or unreadable, FALLBACK_FILE_LIMIT.
 */
export function readFileLimit(text?: string): number {
  let limits = text;
  try {
    limits ??= readFileSync("/proc/self/limits", "utf8");
  } catch {
    return FALLBACK_FILE_LIMIT;
  }
  const m = /^Max open files\s+(\S+)/m.exec(limits);
  if (m?.[1] === undefined) return FALLBACK_FILE_LIMIT;
  if (m[1] === "unlimited") return Infinity;
  const soft = Number(m[1]);
  return Number.isSafeInteger(soft) && soft > 0 ? soft : FALLBACK_FILE_LIMIT;
}

/** The default `MaxConnections`: the soft file limit less RESERVED_FILES, at least 1. */
export function defaultMaxConnections(fileLimit: number = readFileLimit()): number {
  return Math.max(1, fileLimit - RESERVED_FILES);
}

/** A request whose body is still arriving. */
interface Upload {
  req: IncomingMessage;
  res: ServerResponse;
  /** When its head was complete (ms on the clock). */
  since: number;
  /** The connection's `bytesRead` before the request's first byte: its head counts as received. */
  read: number;
}

interface Conn {
  client: string | undefined;
  busy: number;
  /** When the connection last became idle (ms on the clock): its head is due HeadersTimeout later. */
  idleSince: number;
  /** The socket's `bytesRead` when the connection last became idle. */
  read: number;
  upload: Upload | undefined;
}

/** Connection limits installed on one server. */
export interface ConnectionLimits {
  /** Wraps the request handler: marks the connection busy for the request's life; drops requests of refused connections. */
  guard(handler: HandlerFunc): HandlerFunc;
  /** Cuts every upload past its body deadline; `Serve` calls it every second. */
  sweep(): void;
  /** Open connections counted now. */
  open(): number;
}

/** The caps `limitConnections` enforces. */
export interface Caps {
  max: number;
  perClient: number;
  /** Milliseconds an idle connection has to send a request head (`HeadersTimeout`). */
  headersTimeout: number;
}

/** Installs the limits on `server`'s "connection" event. */
export function limitConnections(server: Server, caps: Caps, logger: Logger, clock: Clock): ConnectionLimits {
  const { max, perClient } = caps;
  const maxStreams = Math.max(1, Math.floor(max * STREAM_SHARE));
  const conns = new Map<Socket, Conn>();
  // Idle connections in the order they became idle: the first is the longest idle.
  const idle = new Set<Socket>();
  const uploads = new Set<Socket>();
  // Streams in the order they began: the first is the oldest.
  const streams = new Set<Socket>();
  const perClientCount = new Map<string, number>();
  const warn = throttledWarn(logger, { max, perClient, maxStreams });
  const now = (): number => clock.now().getTime();

  const refuse = (socket: Socket, why: string): void => {
    warn("connection refused", why);
    socket.end(REFUSAL);
    socket.setTimeout(1_000, () => socket.destroy());
  };

  // Closes a connection handling a request: `answer` when its response has not begun, then at once.
  const cut = (socket: Socket, answer: string, why: string): void => {
    warn("connection cut", why);
    const res = conns.get(socket)?.upload?.res;
    forget(socket);
    if (res !== undefined && !res.headersSent) socket.write(answer);
    socket.destroy();
  };

  server.on("connection", (socket: Socket) => {
    const client = socket.remoteAddress === undefined ? undefined : clientKey(socket.remoteAddress);
    // OWASP ASVS 5.0 §13.1.3 (resource management, HTTP connections): one client may not hold more than its share.
    if (client !== undefined && (perClientCount.get(client) ?? 0) >= perClient) return refuse(socket, "per-client limit");
    if (conns.size >= max) {
      const at = now();
      const idler = longestIdle(at);
      const uploader = nearestDeadline(at);
      if (idler === undefined && uploader === undefined) return refuse(socket, "connection limit");
      // The one nearer its deadline goes; on a tie the idle one, whose going loses no work.
      if (idler !== undefined && idler.left <= (uploader?.left ?? Infinity)) {
        forget(idler.socket);
        idler.socket.destroy();
      } else if (uploader !== undefined) {
        cut(uploader.socket, REFUSAL, "connection limit: slowest upload evicted");
      }
    }
    conns.set(socket, { client, busy: 0, idleSince: now(), read: 0, upload: undefined });
    idle.add(socket);
    if (client !== undefined) perClientCount.set(client, (perClientCount.get(client) ?? 0) + 1);
    bindStreamWatcher(socket, () => startStream(socket));
    socket.once("close", () => forget(socket));
  });

  function forget(socket: Socket): void {
    const conn = conns.get(socket);
    if (conn === undefined) return;
    conns.delete(socket);
    idle.delete(socket);
    uploads.delete(socket);
    streams.delete(socket);
    if (conn.client === undefined) return;
    const n = (perClientCount.get(conn.client) ?? 1) - 1;
    if (n === 0) perClientCount.delete(conn.client);
    else perClientCount.set(conn.client, n);
  }

  // Milliseconds left before an upload's body deadline: BODY_GRACE, plus a second per MIN_BODY_RATE bytes of the request received.
  function timeLeft(socket: Socket, upload: Upload, at: number): number {
    return BODY_GRACE + ((socket.bytesRead - upload.read) / MIN_BODY_RATE) * 1000 - (at - upload.since);
  }

  // The connection idle longest, and the milliseconds left before its head is due.
  function longestIdle(at: number): { socket: Socket; left: number } | undefined {
    const socket = idle.values().next().value;
    const conn = socket === undefined ? undefined : conns.get(socket);
    if (socket === undefined || conn === undefined) return undefined;
    return { socket, left: caps.headersTimeout - (at - conn.idleSince) };
  }

  // The upload with the least time left (the slowest reader for its age), forgetting those whose body has arrived.
  function nearestDeadline(at: number): { socket: Socket; left: number } | undefined {
    let nearest: { socket: Socket; left: number } | undefined;
    for (const socket of uploads) {
      const upload = conns.get(socket)?.upload;
      if (upload === undefined || upload.req.complete) {
        uploads.delete(socket);
        continue;
      }
      const left = timeLeft(socket, upload, at);
      if (nearest === undefined || left < nearest.left) nearest = { socket, left };
    }
    return nearest;
  }

  function startStream(socket: Socket): void {
    if (!conns.has(socket)) return;
    streams.add(socket);
    if (streams.size <= maxStreams) return;
    const oldest = streams.values().next().value;
    if (oldest === undefined) return;
    warn("connection cut", "stream share: oldest stream ended");
    forget(oldest);
    oldest.destroy();
  }

  return {
    guard(handler: HandlerFunc): HandlerFunc {
      return function limitedRequest(req: IncomingMessage, res: ServerResponse) {
        const socket = req.socket;
        const conn = conns.get(socket);
        // A refused (or evicted) connection never reaches the application.
        if (conn === undefined) {
          socket.destroy();
          return;
        }
        conn.busy++;
        idle.delete(socket);
        // Until its body has arrived (`req.complete`, read when it matters), the request is an upload.
        const upload: Upload = { req, res, since: now(), read: conn.read };
        conn.upload = upload;
        uploads.add(socket);
        res.once("close", () => {
          if (conn.upload === upload) {
            conn.upload = undefined;
            uploads.delete(socket);
          }
          streams.delete(socket);
          if (--conn.busy > 0 || !conns.has(socket)) return;
          conn.read = socket.bytesRead;
          conn.idleSince = now();
          idle.add(socket);
        });
        return handler(req, res);
      };
    },
    sweep(): void {
      const at = now();
      for (const socket of uploads) {
        const upload = conns.get(socket)?.upload;
        if (upload === undefined || upload.req.complete) uploads.delete(socket);
        // OWASP ASVS 5.0 §13.1.3 (resource management): a body trickling in below the rate floor is cut.
        else if (timeLeft(socket, upload, at) < 0) cut(socket, BODY_TOO_SLOW, "request body too slow");
      }
    },
    open: () => conns.size,
  };
}

/** Logs `msg` at most once per WARN_EVERY for each reason, with how many happened since the last line. */
function throttledWarn(logger: Logger, caps: Record<string, number>): (msg: string, reason: string) => void {
  const last = new Map<string, { at: number; count: number }>();
  return (msg, reason) => {
    const seen = last.get(reason) ?? { at: -Infinity, count: 0 };
    seen.count++;
    const at = performance.now();
    if (at - seen.at >= WARN_EVERY) {
      logger.warn(msg, { reason, count: seen.count, ...caps });
      seen.at = at;
      seen.count = 0;
    }
    last.set(reason, seen);
  };
}
