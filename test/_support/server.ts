/*
 * The one way the suites start an HTTP server: a handler on 127.0.0.1, port
 * 0, answering a thrown or rejected handler with 500 `thrown: <message>`
 * (what a test sees instead of an unhandled rejection), and closed with its
 * open connections dropped. `startServer` closes it when the test ends;
 * `listen` leaves closing to its caller (servers a harness owns).
 * `freePort` is a loopback port nothing listens on (bound, then released).
 * With `tls` (a key and certificate, `test-ca.ts`) it serves https instead.
 * Its requests and responses are of `Serve`'s classes (`SERVE_CLASSES`),
 * unless `response` names another response class.
 */
import { createServer, type Server, type ServerResponse } from "node:http";
import { createServer as createTLSServer } from "node:https";
import { createServer as createTCPServer, type AddressInfo, type Socket } from "node:net";
import type { TestContext } from "node:test";
import type { HandlerFunc } from "../../lib/http/index.ts";
import { SERVE_CLASSES } from "../../lib/runtime/serve.ts";

/** A listening server. */
export interface Listening {
  server: Server;
  port: number;
  /** http://127.0.0.1:<port>, or https://localhost:<port> with `tls` */
  base: string;
  /** Drops open connections and closes the server. */
  close(): Promise<void>;
}

/** Options of `listen` and `startServer`. */
export interface ServerOptions {
  /** Runs after the server closed (a `Handler`'s cleanup, a registry's shutdown). */
  cleanup?: () => void;
  /** Sees every accepted connection (a socket bound to a shutdown signal). */
  onConnection?: (socket: Socket) => void;
  /** Serve https with this key and certificate (PEM; `testCA()` gives one for localhost). */
  tls?: { key: string; cert: string };
  /** The class of the server's responses: node:http's own `ServerResponse` for a server not built as `Serve` builds it. */
  response?: typeof ServerResponse;
}

/** Serves `handler` (or, unset, nothing yet: add a "request" listener) on 127.0.0.1, port 0. */
export async function listen(handler?: HandlerFunc, options: ServerOptions = {}): Promise<Listening> {
  const classes = { ...SERVE_CLASSES, ServerResponse: options.response ?? SERVE_CLASSES.ServerResponse };
  const server: Server = options.tls === undefined ? createServer(classes) : createTLSServer({ ...options.tls, ...classes });
  if (handler !== undefined) {
    server.on("request", (req, res) => {
      const fail = (e: unknown): void => {
        if (!res.headersSent) res.statusCode = 500;
        res.end(e instanceof Error ? `thrown: ${e.message}` : "thrown");
      };
      // Called at once, as node:http calls a listener: a test writing bytes after a request sees the answer first.
      try {
        Promise.resolve(handler(req, res)).catch(fail);
      } catch (e) {
        fail(e);
      }
    });
  }
  if (options.onConnection !== undefined) server.on("connection", options.onConnection);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  let closed: Promise<void> | undefined;
  return {
    server,
    port,
    base: options.tls === undefined ? `http://127.0.0.1:${port}` : `https://localhost:${port}`,
    close: () => {
      closed ??= new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }).then(() => options.cleanup?.());
      return closed;
    },
  };
}

/** `listen`, closed (then `options.cleanup` run) when the test ends. */
export async function startServer(t: TestContext, handler?: HandlerFunc, options: ServerOptions = {}): Promise<Listening> {
  const served = await listen(handler, options);
  t.after(() => served.close());
  return served;
}

/** A loopback port nothing listens on: bound, then released. */
export async function freePort(): Promise<number> {
  const server = createTCPServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
