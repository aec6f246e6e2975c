// How a request waiting on something outside the process (a fetch) tells `Serve`'s connection limits so (lib/runtime/README.md, "Connections"); outside `Serve`, just the wait.
import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";

const watchers = new WeakMap<Socket, (waiting: boolean) => void>();

/** Binds the function told when a request on `socket` begins (true) and ends (false) a wait; called by `Serve`. */
export function bindWaitWatcher(socket: Socket, onWait: (waiting: boolean) => void): void {
  watchers.set(socket, onWait);
}

/**
 * Awaits `wait` with `req`'s connection marked waiting, whichever way it
 * settles. The limits may cut the connection meanwhile (past the share, the
 * deadline, or evicted at the cap): the wait still settles, and what the
 * handler then writes goes nowhere.
 */
export async function waitOutside<T>(req: IncomingMessage, wait: Promise<T>): Promise<T> {
  const watcher = watchers.get(req.socket);
  watcher?.(true);
  try {
    return await wait;
  } finally {
    watcher?.(false);
  }
}
