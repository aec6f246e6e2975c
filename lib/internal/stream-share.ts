// How an event stream tells `Serve`'s connection limits that its connection holds a stream, without importing the runtime; outside `Serve`, a no-op.
import type { ServerResponse } from "node:http";
import type { Socket } from "node:net";

const watchers = new WeakMap<Socket, () => void>();

/** Binds the function told when a response on `socket` becomes a stream; called by `Serve`. */
export function bindStreamWatcher(socket: Socket, onStream: () => void): void {
  watchers.set(socket, onStream);
}

/** Reports that `res` is a long-lived stream: it counts against `Serve`'s stream share. */
export function holdsStream(res: ServerResponse): void {
  const socket = res.socket;
  if (socket !== null) watchers.get(socket)?.();
}
