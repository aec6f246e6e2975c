/*
 * A per-request AbortSignal that fires when the client goes away or the
 * server begins shutting down, so long-lived responses (event streams)
 * end promptly during a graceful shutdown. The server binds its shutdown
 * signal to each connection once; the per-request signal is built lazily,
 * only for handlers that ask, so ordinary requests pay nothing.
 */
import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";

const shutdownSignals = new WeakMap<Socket, AbortSignal>();
const requestSignals = new WeakMap<IncomingMessage, AbortSignal>();

/** Binds the server's shutdown signal to a connection; called by `Serve`. */
export function bindShutdownSignal(socket: Socket, signal: AbortSignal): void {
  shutdownSignals.set(socket, signal);
}

/**
 * Returns the request's signal: aborted when the client disconnects or the
 * server shuts down (outside `Serve`, only the former).
 */
export function RequestSignal(req: IncomingMessage): AbortSignal {
  let signal = requestSignals.get(req);
  if (signal !== undefined) return signal;
  const controller = new AbortController();
  const abort = (): void => controller.abort();
  const shutdown = shutdownSignals.get(req.socket);
  req.socket.once("close", () => {
    shutdown?.removeEventListener("abort", abort);
    abort();
  });
  if (shutdown !== undefined) {
    if (shutdown.aborted) abort();
    else shutdown.addEventListener("abort", abort, { once: true });
  }
  signal = controller.signal;
  requestSignals.set(req, signal);
  return signal;
}
