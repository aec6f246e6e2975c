// The server's shutdown signal, bound to each connection by `Serve`, so long-lived responses end promptly at shutdown.
import type { Socket } from "node:net";

const shutdownSignals = new WeakMap<Socket, AbortSignal>();

/** Binds the server's shutdown signal to a connection; called by `Serve`. */
export function bindShutdownSignal(socket: Socket, signal: AbortSignal): void {
  shutdownSignals.set(socket, signal);
}

/** The shutdown signal `Serve` bound to a connection, or undefined; cheaper than `requestSignal` for a handler of thousands of connections. */

export function shutdownSignal(socket: Socket): AbortSignal | undefined {
  return shutdownSignals.get(socket);
}
