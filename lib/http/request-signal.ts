/*
 * A per-request AbortSignal that fires when the client goes away or the
 * server begins shutting down, so long-lived responses (event streams)
 * end promptly during a graceful shutdown. The server binds its shutdown
 * signal to each connection once (lib/internal's `bindShutdownSignal`);
 * the per-request signal is built lazily, only for handlers that ask.
 *
 * The signal watches the socket's `close` (the client went away) and the
 * shutdown signal, and lets go of both when the response finishes, so a
 * keep-alive connection serving many such requests does not pile up
 * listeners. The request's own `close` is no use here: Node also
 * fires it as soon as a request body has been read, while the response goes
 * on. The end of the response is observed on Node's documented
 * `http.server.response.finish` diagnostics channel, subscribed to on the
 * first call; from then on each finished response costs one lookup.
 */
import { subscribe } from "node:diagnostics_channel";
import { IncomingMessage } from "node:http";
import { requestSlot, shutdownSignal } from "../internal/index.ts";

const requestSignals = requestSlot<AbortSignal>();
const releases = requestSlot<() => void>();
let watching = false;

/**
 * Returns the request's signal: aborted when the client disconnects or the
 * server shuts down (outside `Serve`, only the former) before the response
 * has finished. Calling it again for the same request returns the same signal.
 */
export function requestSignal(req: IncomingMessage): AbortSignal {
  const known = requestSignals.get(req);
  if (known !== undefined) return known;
  const controller = new AbortController();
  requestSignals.set(req, controller.signal);
  const socket = req.socket;
  const shutdown = shutdownSignal(socket);
  if (socket.destroyed || shutdown?.aborted === true) {
    controller.abort();
    return controller.signal;
  }
  const release = (): void => {
    releases.set(req, undefined);
    socket.off("close", abort);
    shutdown?.removeEventListener("abort", abort);
  };
  const abort = (): void => {
    release();
    controller.abort();
  };
  socket.once("close", abort);
  shutdown?.addEventListener("abort", abort, { once: true });
  releases.set(req, release);
  watchResponses();
  return controller.signal;
}

function watchResponses(): void {
  if (watching) return;
  watching = true;
  subscribe("http.server.response.finish", onResponseFinish);
}

// The message is Node's `{ request, response, socket, server }`; read it as untrusted.
function onResponseFinish(message: unknown): void {
  if (typeof message !== "object" || message === null || !("request" in message)) return;
  const req = message.request;
  if (req instanceof IncomingMessage) releases.get(req)?.();
}
