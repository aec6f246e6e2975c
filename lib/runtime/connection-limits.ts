/*
 * Connection limits for `Serve`: a bound on open connections, a per-client
 * bound, deadlines for uploads, waits and unread responses, and a share of
 * the cap for event streams, so that no flood of slow, idle or long-lived
 * connections starves `/healthz` and ordinary requests. The policy, and
 * what idle, uploading, waiting and streaming mean: lib/runtime/README.md,
 * "Connections".
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Clock, HandlerFunc, Logger } from "../http/index.ts";
import { bindStreamWatcher, bindWaitWatcher, clientKey } from "../internal/index.ts";
import { readFileLimit } from "./file-limit.ts";
import { checkWrites, WAIT_DEADLINE, WAIT_SHARE, WAITED_TOO_LONG, type WriteWindow } from "./busy-deadlines.ts";

/** File descriptors kept free of connections: the database and its WAL, logs, the listener, workers. */
export const RESERVED_FILES: number = 128;

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
  /** Waits under way (lib/internal waiting.ts); the connection is in the waiting class while above 0. */
  waits: number;
  /** When its current wait began (ms on the clock): it is due WAIT_DEADLINE later. */
  waitSince: number;
  /** The window in which its response has had bytes pending (busy-deadlines.ts). */
  write: WriteWindow | undefined;
}

/** Connection limits installed on one server. */
export interface ConnectionLimits {
  /** Wraps the request handler: marks the connection busy for the request's life; drops requests of refused connections. */
  guard(handler: HandlerFunc): HandlerFunc;
  /** Cuts every upload, wait and unread response past its deadline; `Serve` calls it every second. */
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
  const limiter = new Limiter(caps, logger, clock);
  server.on("connection", (socket: Socket) => limiter.accept(socket));
  return limiter;
}

/** The connections of one server and the classes they are in. */
class Limiter implements ConnectionLimits {
  readonly #caps: Caps;
  readonly #clock: Clock;
  readonly #maxStreams: number;
  readonly #maxWaiting: number;
  readonly #warn: (msg: string, reason: string) => void;
  readonly #conns = new Map<Socket, Conn>();
  // Idle connections in the order they became idle: the first is the longest idle.
  readonly #idle = new Set<Socket>();
  readonly #uploads = new Set<Socket>();
  // Streams in the order they began: the first is the oldest.
  readonly #streams = new Set<Socket>();
  // Waiting requests in the order their wait began: the first is the oldest, nearest WAIT_DEADLINE.
  readonly #waiting = new Set<Socket>();
  readonly #perClient = new Map<string, number>();

  constructor(caps: Caps, logger: Logger, clock: Clock) {
    this.#caps = caps;
    this.#clock = clock;
    this.#maxStreams = Math.max(1, Math.floor(caps.max * STREAM_SHARE));
    this.#maxWaiting = Math.max(1, Math.floor(caps.max * WAIT_SHARE));
    this.#warn = throttledWarn(logger, {
      max: caps.max,
      perClient: caps.perClient,
      maxStreams: this.#maxStreams,
      maxWaiting: this.#maxWaiting,
    });
  }

  #now(): number {
    return this.#clock.now().getTime();
  }

  accept(socket: Socket): void {
    const client = socket.remoteAddress === undefined ? undefined : clientKey(socket.remoteAddress);
    // OWASP ASVS 5.0 §13.1.3 (resource management, HTTP connections): one client may not hold more than its share.
    if (client !== undefined && (this.#perClient.get(client) ?? 0) >= this.#caps.perClient) return this.#refuse(socket, "per-client limit");
    if (this.#conns.size >= this.#caps.max && !this.#evictOne()) return this.#refuse(socket, "connection limit");
    this.#conns.set(socket, {
      client,
      busy: 0,
      idleSince: this.#now(),
      read: 0,
      upload: undefined,
      waits: 0,
      waitSince: 0,
      write: undefined,
    });
    this.#idle.add(socket);
    if (client !== undefined) this.#perClient.set(client, (this.#perClient.get(client) ?? 0) + 1);
    bindStreamWatcher(socket, () => this.#startStream(socket));
    bindWaitWatcher(socket, (waiting) => this.#wait(socket, waiting));
    socket.once("close", () => this.#forget(socket));
  }

  // Makes room for a newcomer at the cap: whichever connection is nearest its own deadline goes. False when none may.
  #evictOne(): boolean {
    const at = this.#now();
    const candidates = [
      { kind: "idle", ...this.#longestIdle(at) },
      { kind: "upload", ...this.#nearestUpload(at) },
      { kind: "waiting", ...this.#oldestWaiting(at) },
    ].filter((c): c is { kind: string; socket: Socket; left: number } => c.socket !== undefined);
    // The one nearest its deadline; on a tie the earlier kind: an idle connection, whose going loses no work.
    const victim = candidates.reduce<(typeof candidates)[number] | undefined>(
      (a, c) => (a === undefined || c.left < a.left ? c : a),
      undefined,
    );
    if (victim === undefined) return false;
    if (victim.kind === "idle") {
      this.#forget(victim.socket);
      victim.socket.destroy();
    } else {
      this.#cut(
        victim.socket,
        REFUSAL,
        `connection limit: ${victim.kind === "upload" ? "slowest upload" : "oldest waiting request"} evicted`,
      );
    }
    return true;
  }

  #refuse(socket: Socket, why: string): void {
    this.#warn("connection refused", why);
    socket.end(REFUSAL);
    socket.setTimeout(1_000, () => socket.destroy());
  }

  // Closes a connection handling a request: `answer` when its response has not begun, then at once.
  #cut(socket: Socket, answer: string, why: string): void {
    this.#warn("connection cut", why);
    const res = this.#conns.get(socket)?.upload?.res;
    this.#forget(socket);
    if (res !== undefined && !res.headersSent) socket.write(answer);
    socket.destroy();
  }

  #forget(socket: Socket): void {
    const conn = this.#conns.get(socket);
    if (conn === undefined) return;
    this.#conns.delete(socket);
    this.#idle.delete(socket);
    this.#uploads.delete(socket);
    this.#streams.delete(socket);
    this.#waiting.delete(socket);
    if (conn.client === undefined) return;
    const n = (this.#perClient.get(conn.client) ?? 1) - 1;
    if (n === 0) this.#perClient.delete(conn.client);
    else this.#perClient.set(conn.client, n);
  }

  // Milliseconds left before an upload's body deadline: BODY_GRACE, plus a second per MIN_BODY_RATE bytes of the request received.
  #uploadLeft(socket: Socket, upload: Upload, at: number): number {
    return BODY_GRACE + ((socket.bytesRead - upload.read) / MIN_BODY_RATE) * 1000 - (at - upload.since);
  }

  // The connection idle longest, and the milliseconds left before its head is due.
  #longestIdle(at: number): { socket?: Socket; left?: number } {
    const socket = this.#idle.values().next().value;
    const conn = socket === undefined ? undefined : this.#conns.get(socket);
    if (socket === undefined || conn === undefined) return {};
    return { socket, left: this.#caps.headersTimeout - (at - conn.idleSince) };
  }

  // The upload with the least time left (the slowest reader for its age), forgetting those whose body has arrived.
  #nearestUpload(at: number): { socket?: Socket; left?: number } {
    let nearest: { socket: Socket; left: number } | undefined;
    for (const socket of this.#uploads) {
      const upload = this.#conns.get(socket)?.upload;
      if (upload === undefined || upload.req.complete) {
        this.#uploads.delete(socket);
        continue;
      }
      const left = this.#uploadLeft(socket, upload, at);
      if (nearest === undefined || left < nearest.left) nearest = { socket, left };
    }
    return nearest ?? {};
  }

  // The request waiting longest, and the milliseconds left before WAIT_DEADLINE.
  #oldestWaiting(at: number): { socket?: Socket; left?: number } {
    const socket = this.#waiting.values().next().value;
    const conn = socket === undefined ? undefined : this.#conns.get(socket);
    if (socket === undefined || conn === undefined) return {};
    return { socket, left: WAIT_DEADLINE - (at - conn.waitSince) };
  }

  #startStream(socket: Socket): void {
    if (!this.#conns.has(socket)) return;
    this.#streams.add(socket);
    if (this.#streams.size <= this.#maxStreams) return;
    const oldest = this.#streams.values().next().value;
    if (oldest === undefined) return;
    this.#warn("connection cut", "stream share: oldest stream ended");
    this.#forget(oldest);
    oldest.destroy();
  }

  // A request on `socket` begins or ends a wait on something outside (lib/internal waiting.ts).
  #wait(socket: Socket, waiting: boolean): void {
    const conn = this.#conns.get(socket);
    if (conn === undefined) return;
    if (!waiting) {
      conn.waits = Math.max(0, conn.waits - 1);
      if (conn.waits === 0) this.#waiting.delete(socket);
      return;
    }
    if (conn.waits++ > 0) return;
    conn.waitSince = this.#now();
    this.#waiting.add(socket);
    if (this.#waiting.size <= this.#maxWaiting) return;
    const oldest = this.#waiting.values().next().value;
    // OWASP ASVS 5.0 §13.1.3 (resource management): requests waiting on others hold at most WAIT_SHARE of the cap.
    if (oldest !== undefined) this.#cut(oldest, REFUSAL, "wait share: oldest waiting request cut");
  }

  guard(handler: HandlerFunc): HandlerFunc {
    return (req: IncomingMessage, res: ServerResponse) => {
      const socket = req.socket;
      const conn = this.#conns.get(socket);
      // A refused (or evicted) connection never reaches the application.
      if (conn === undefined) {
        socket.destroy();
        return;
      }
      conn.busy++;
      this.#idle.delete(socket);
      // Until its body has arrived (`req.complete`, read when it matters), the request is an upload.
      const upload: Upload = { req, res, since: this.#now(), read: conn.read };
      conn.upload = upload;
      this.#uploads.add(socket);
      res.once("close", () => {
        if (conn.upload === upload) {
          conn.upload = undefined;
          this.#uploads.delete(socket);
        }
        this.#streams.delete(socket);
        if (--conn.busy > 0 || !this.#conns.has(socket)) return;
        conn.read = socket.bytesRead;
        conn.idleSince = this.#now();
        this.#idle.add(socket);
      });
      return handler(req, res);
    };
  }

  sweep(): void {
    const at = this.#now();
    for (const socket of this.#uploads) {
      const upload = this.#conns.get(socket)?.upload;
      if (upload === undefined || upload.req.complete) this.#uploads.delete(socket);
      // OWASP ASVS 5.0 §13.1.3 (resource management): a body trickling in below the rate floor is cut.
      else if (this.#uploadLeft(socket, upload, at) < 0) this.#cut(socket, BODY_TOO_SLOW, "request body too slow");
    }
    for (const socket of this.#waiting) {
      // OWASP ASVS 5.0 §13.1.3: a wait on another server has a deadline; the oldest comes first, so the loop stops at the first in time.
      if (at - (this.#conns.get(socket)?.waitSince ?? at) < WAIT_DEADLINE) break;
      this.#cut(socket, WAITED_TOO_LONG, "waited too long");
    }
    for (const [socket, conn] of this.#conns) {
      const write = checkWrites(socket, conn.write, at);
      if (write !== "stalled") conn.write = write;
      else {
        this.#warn("connection cut", "response not read");
        this.#forget(socket);
        // A reset, not a close: the kernel drops what it still holds for the client instead of trying to deliver it.
        socket.resetAndDestroy();
      }
    }
  }

  open(): number {
    return this.#conns.size;
  }
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
