/*
 * latch's full stack: `Handler({ Mux })` (panic recovery, security
 * headers, chrome probes, then the router) over a `Mux` holding the
 * benchmark application's 50 routes plus `GET /{$}`, on a server built as
 * `Serve` builds it (`SERVE_CLASSES`: requests that hold their own
 * per-request values, responses that write the security headers with the
 * head) without `Serve`'s connection caps.
 *
 * Usage: node dist/scripts/bench-servers/latch.js
 */
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { discardLogger, type HandlerFunc } from "../../lib/http/index.ts";
import { Handler } from "../../lib/index.ts";
import { Mux, PathValue } from "../../lib/router/index.ts";
import { SERVE_CLASSES } from "../../lib/runtime/serve.ts";
import { announce, HELLO_BODY, otherBody, ROUTES, userBody } from "./routes.ts";

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.statusCode = status;
  res.setHeader("Content-Type", type);
  res.end(body);
}

function benchMux(): Mux {
  const mux = new Mux();
  mux.Handle("GET /{$}", (_req, res) => send(res, 200, "text/plain; charset=utf-8", HELLO_BODY));
  for (const route of ROUTES) {
    const resource = route.path.split("/")[1] ?? "";
    const handler: HandlerFunc =
      route.method === "GET" && route.path.endsWith("{id}")
        ? (req, res) => send(res, 200, "application/json", userBody(resource, PathValue(req, "id")))
        : (_req, res) => send(res, 200, "application/json", otherBody(route.method, route.path));
    mux.Handle(`${route.method} ${route.path}`, handler);
  }
  return mux;
}

const [handler] = Handler({ Mux: benchMux(), Logger: discardLogger });
const server = createServer(SERVE_CLASSES, handler);
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => announce((server.address() as AddressInfo).port));
