/*
 * The server's shutdown signal, bound to each connection by `Serve` and read
 * by whatever holds a connection open (lib/http's `requestSignal`, the jobs
 * event stream), so long-lived responses end promptly at shutdown.
 */
import type { Socket } from "node:net";

const shutdownSignals = new WeakMap<Socket, AbortSignal>();

/** Binds the server's shutdown signal to a connection; called by `Serve`. */
export function bindShutdownSignal(socket: Socket, signal: AbortSignal): void {
  shutdownSignals.set(socket, signal);
}

/**
 * Returns the server's shutdown signal bound to a connection by `Serve`,
 * or undefined outside `Serve`. Cheaper than `requestSignal` for a handler
 * that holds thousands of connections and watches the client's going away
 * itself (the response's `close`).
 */
export function shutdownSignal(socket: Socket): AbortSignal | undefined {
  return shutdownSignals.get(socket);
}
