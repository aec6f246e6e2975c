/*
 * A per-request AbortSignal for the client's going away or the server's
 * shutdown, built only for handlers that ask. It lets go of both when the
 * response finishes (Node's `http.server.response.finish` channel), so a
 * keep-alive connection does not pile up listeners; the request's own
 * `close` is no use: Node fires it once the body is read.
 */
import { subscribe } from "node:diagnostics_channel";
import { IncomingMessage } from "node:http";
import { requestSlot, shutdownSignal } from "../internal/index.ts";

const requestSignals = requestSlot<AbortSignal>();
const releases = requestSlot<() => void>();
let watching = false;

/** The request's signal (the same on every call): aborted when the client disconnects or the server shuts down before the response has finished. */

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
