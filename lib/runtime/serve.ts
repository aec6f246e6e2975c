/*
 * Serve: boot (`Handler`), listen, shut down gracefully. On SIGTERM, SIGINT
 * or `Options.Signal` it stops `Options.Stop` and accepting, aborts every
 * request's `requestSignal`, lets in-flight requests finish for
 * `ShutdownGrace` ms, then cuts what remains and closes the runtime's database.
 */
import { createServer } from "node:http";
import type { Socket } from "node:net";
import { BaselineResponse } from "./baseline-response.ts";
import { defaultMaxConnections, DEFAULT_MAX_CONNECTIONS_PER_CLIENT, limitConnections } from "./connection-limits.ts";
import { Handler } from "./handler.ts";
import { chooseListen, listenOn } from "./listen.ts";
import { newLogger, systemClock } from "../http/index.ts";
import { bindShutdownSignal, SlottedRequest } from "../internal/index.ts";
import type { Options } from "./options.ts";

/** The request and response classes of `Serve`'s server (README, "Not exported"); the test server and the benchmarks use them too. */
export const SERVE_CLASSES: { IncomingMessage: typeof SlottedRequest; ServerResponse: typeof BaselineResponse } = {
  IncomingMessage: SlottedRequest,
  ServerResponse: BaselineResponse,
};

/** Milliseconds in-flight requests get after a shutdown signal. */
export const DEFAULT_SHUTDOWN_GRACE: number = 10_000;

/** Milliseconds a client has to send a complete request head. */
export const DEFAULT_HEADERS_TIMEOUT: number = 10_000;

/** Milliseconds a request has from its first byte to the end of its body. */
const REQUEST_TIMEOUT = 60_000;

/** How often Node checks the header and request timeouts (its default, 30 s, would let a slow head live 40 s), and the limits their body deadlines. */
const TIMEOUT_CHECK_INTERVAL = 1_000;

/**
 * Opens the database (when `DBPath` is set), serves until a shutdown
 * signal, and resolves once every connection is closed and the database
 * the runtime opened is closed. Rejects on a boot error.
 *
 * @example
 * await Serve({ Mux: mux, DBPath: "app.db", Addr: ":8080" });
 */
export async function Serve(opts: Options): Promise<void> {
  const logger = opts.Logger ?? newLogger();
  const [handler, cleanup] = Handler({ ...opts, Logger: logger });
  const shutdown = new AbortController();
  const headersTimeout = opts.HeadersTimeout ?? DEFAULT_HEADERS_TIMEOUT;
  const server = createServer({
    ...SERVE_CLASSES,
    headersTimeout,
    // Node refuses a request timeout shorter than the headers timeout.
    requestTimeout: Math.max(REQUEST_TIMEOUT, headersTimeout),
    connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL,
  });
  const max = opts.MaxConnections ?? defaultMaxConnections();
  const perClient = opts.MaxConnectionsPerClient ?? DEFAULT_MAX_CONNECTIONS_PER_CLIENT;
  const limits = limitConnections(server, { max, perClient, headersTimeout }, logger, systemClock);
  server.on("request", limits.guard(handler));
  server.on("connection", (socket: Socket) => bindShutdownSignal(socket, shutdown.signal));
  let where: string;
  try {
    where = await listenOn(server, chooseListen(opts.Socket, opts.Addr, process.env));
  } catch (err) {
    cleanup();
    throw err;
  }
  const closed = new Promise<void>((resolve) => server.once("close", resolve));
  const sweeping = setInterval(() => limits.sweep(), TIMEOUT_CHECK_INTERVAL).unref();
  const stop = (reason: string): void => {
    if (shutdown.signal.aborted) return;
    logger.info("shutting down", { reason });
    shutdown.abort();
    for (const part of opts.Stop ?? []) {
      try {
        part.Shutdown();
      } catch (error) {
        logger.error("shutdown failed", { error });
      }
    }
    server.close();
    server.closeIdleConnections();
    setTimeout(() => server.closeAllConnections(), opts.ShutdownGrace ?? DEFAULT_SHUTDOWN_GRACE).unref();
  };
  const onTerm = (): void => stop("SIGTERM");
  const onInt = (): void => stop("SIGINT");
  const onAbort = (): void => stop("signal");
  process.once("SIGTERM", onTerm);
  process.once("SIGINT", onInt);
  opts.Signal?.addEventListener("abort", onAbort, { once: true });
  // Only now say "listening": a supervisor may send SIGTERM the moment it
  // reads that line, and the handlers above must already be in place.
  logger.info("listening", { addr: where, ...listenURL(where) });
  const mismatch = originMismatch(opts.Origin, where);
  if (mismatch !== undefined) logger.warn(mismatch);
  if (opts.Signal?.aborted === true) stop("signal");
  await closed;
  clearInterval(sweeping);
  process.off("SIGTERM", onTerm);
  process.off("SIGINT", onInt);
  opts.Signal?.removeEventListener("abort", onAbort);
  cleanup();
  logger.info("stopped");
}

// A TCP address as a person would open it: a wildcard host is reachable as localhost.
function listenURL(where: string): { url?: string } {
  const m = /^(.*):(\d+)$/.exec(where);
  if (m === null || where.startsWith("/")) return {};
  const host = m[1] === "::" || m[1] === "0.0.0.0" || m[1] === "::1" || m[1] === "127.0.0.1" ? "localhost" : (m[1] ?? "");
  return { url: `http://${host.includes(":") ? `[${host}]` : host}:${m[2] ?? ""}` };
}

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * Returns a warning when `Origin` names this machine on another port than
 * the one listened on: emailed links, cookies and passkeys would then point
 * at a server that is not this one. A public origin (behind a proxy) is
 * never compared.
 */
export function originMismatch(origin: string | undefined, where: string): string | undefined {
  if (origin === undefined) return undefined;
  const port = /:(\d+)$/.exec(where)?.[1];
  const url = URL.parse(origin);
  if (port === undefined || url === null || !LOOPBACK.has(url.hostname)) return undefined;

  const originPort = url.port === "" ? (url.protocol === "https:" ? "443" : "80") : url.port;
  if (originPort === port) return undefined;
  return `ORIGIN ${url.origin} and the listen address (port ${port}) disagree: links, cookies and passkeys point at ${url.origin}; set ORIGIN (Options.Origin) to http://localhost:${port}`;
}
