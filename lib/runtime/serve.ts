/*
 * Serve: boot (see `Handler`), listen, and shut down gracefully. On
 * SIGTERM or SIGINT (or `Options.Signal`) the server stops accepting,
 * aborts every request's `requestSignal` so long-lived streams end, lets
 * in-flight requests finish for `ShutdownGrace` milliseconds, then cuts
 * what remains and closes the database the runtime opened.
 */
import { createServer } from "node:http";
import type { Socket } from "node:net";
import { defaultMaxConnections, DEFAULT_MAX_CONNECTIONS_PER_CLIENT, limitConnections } from "./connection-limits.ts";
import { Handler } from "./handler.ts";
import { chooseListen, listenOn } from "./listen.ts";
import { bindShutdownSignal, newLogger } from "../http/index.ts";
import type { Options } from "./options.ts";

/** Milliseconds in-flight requests get after a shutdown signal. */
export const DEFAULT_SHUTDOWN_GRACE: number = 10_000;

/** Milliseconds a client has to send a complete request head. */
export const DEFAULT_HEADERS_TIMEOUT: number = 10_000;

/** Milliseconds a request has from its first byte to the end of its body. */
const REQUEST_TIMEOUT = 60_000;

/** How often Node checks the header and request timeouts (its default, 30 s, would let a slow head live 40 s). */
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
    headersTimeout,
    // Node refuses a request timeout shorter than the headers timeout.
    requestTimeout: Math.max(REQUEST_TIMEOUT, headersTimeout),
    connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL,
  });
  const limits = limitConnections(server, opts.MaxConnections ?? defaultMaxConnections(), opts.MaxConnectionsPerClient ?? DEFAULT_MAX_CONNECTIONS_PER_CLIENT, logger);
  server.on("request", limits.guard(handler));
  server.on("connection", (socket: Socket) => bindShutdownSignal(socket, shutdown.signal));
  let where: string;
  try {
    where = await listenOn(server, chooseListen(opts.Socket, opts.Addr, process.env));
  } catch (err) {
    cleanup();
    throw err;
  }
  logger.info("listening", { addr: where });
  const closed = new Promise<void>((resolve) => server.once("close", resolve));
  const stop = (reason: string): void => {
    if (shutdown.signal.aborted) return;
    logger.info("shutting down", { reason });
    shutdown.abort();
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
  if (opts.Signal?.aborted === true) stop("signal");
  await closed;
  process.off("SIGTERM", onTerm);
  process.off("SIGINT", onInt);
  opts.Signal?.removeEventListener("abort", onAbort);
  cleanup();
  logger.info("stopped");
}
