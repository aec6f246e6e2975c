/*
 * Connection limits for `Serve`: a bound on open connections that keeps
 * the process inside its file limit, and a per-client bound, so a flood of
 * slow or idle connections cannot starve `/healthz` and ordinary requests.
 *
 * A connection is *idle* while no request of its is being handled: before
 * its first request head is complete (a slow-header client), and between
 * keep-alive requests. At `MaxConnections`, a new connection first evicts
 * the connection that has been idle longest (it loses nothing: no request
 * of it is running); only when every connection is handling a request is
 * the new one refused with a 503. A client address at
 * `MaxConnectionsPerClient` open connections is refused with a 503.
 * Unix-socket connections carry no address and only count toward the total.
 */
import { readFileSync } from "node:fs";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { HandlerFunc, Logger } from "../http/index.ts";

/** File descriptors kept free of connections: the database and its WAL, logs, the listener, workers. */
export const RESERVED_FILES: number = 128;

/** The file limit assumed when `/proc/self/limits` cannot be read (a common soft default). */
export const FALLBACK_FILE_LIMIT: number = 1024;

/** Open connections one client address may hold at once. */
export const DEFAULT_MAX_CONNECTIONS_PER_CLIENT: number = 64;

/** Milliseconds between two "connection refused" log lines: a flood must not become a log flood. */
const WARN_EVERY = 10_000;

/** What a refused connection reads before the server closes it. */
export const REFUSAL: string =
  "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nRetry-After: 5\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 25\r\n\r\nToo many connections. :(\n";

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

interface Conn {
  client: string | undefined;
  busy: number;
}

/** Connection limits installed on one server. */
export interface ConnectionLimits {
  /** Wraps the request handler: marks the connection busy for the request's life; drops requests of refused connections. */
  guard(handler: HandlerFunc): HandlerFunc;
  /** Open connections counted now. */
  open(): number;
}

/** Installs the limits on `server`'s "connection" event. */
export function limitConnections(server: Server, max: number, perClient: number, logger: Logger): ConnectionLimits {
  const conns = new Map<Socket, Conn>();
  // Idle connections in the order they became idle: the first is the longest idle.
  const idle = new Set<Socket>();
  const perAddress = new Map<string, number>();
  let refused = 0;
  let lastWarn = -Infinity;

  const refuse = (socket: Socket, why: string): void => {
    refused++;
    const now = performance.now();
    if (now - lastWarn >= WARN_EVERY) {
      logger.warn("connection refused", { reason: why, refused, max, perClient });
      lastWarn = now;
      refused = 0;
    }
    socket.end(REFUSAL);
    socket.setTimeout(1_000, () => socket.destroy());
  };

  server.on("connection", (socket: Socket) => {
    const client = socket.remoteAddress;
    // OWASP ASVS 5.0 §13.1.3 (resource management, HTTP connections): one address may not hold more than its share.
    if (client !== undefined && (perAddress.get(client) ?? 0) >= perClient) return refuse(socket, "per-client limit");
    if (conns.size >= max) {
      const oldest = idle.values().next();
      if (oldest.done === true) return refuse(socket, "connection limit");
      // The longest-idle connection has no request running: closing it loses no work.
      forget(oldest.value);
      oldest.value.destroy();
    }
    conns.set(socket, { client, busy: 0 });
    idle.add(socket);
    if (client !== undefined) perAddress.set(client, (perAddress.get(client) ?? 0) + 1);
    socket.once("close", () => forget(socket));
  });

  function forget(socket: Socket): void {
    const conn = conns.get(socket);
    if (conn === undefined) return;
    conns.delete(socket);
    idle.delete(socket);
    if (conn.client === undefined) return;
    const n = (perAddress.get(conn.client) ?? 1) - 1;
    if (n === 0) perAddress.delete(conn.client);
    else perAddress.set(conn.client, n);
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
        res.once("close", () => {
          if (--conn.busy === 0 && conns.has(socket)) idle.add(socket);
        });
        return handler(req, res);
      };
    },
    open: () => conns.size,
  };
}
