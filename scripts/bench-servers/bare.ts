/*
 * The baseline: bare node:http with a `switch` on the URL and no router,
 * answering the benchmark application (routes.ts) by hand. With the
 * argument `headers` it first sets the exact security headers latch sets
 * (`securityHeaderList()`), one `setHeader` each as latch does: the
 * physical limit for a server that sends latch's responses.
 *
 * Usage: node dist/scripts/bench-servers/bare.js [plain|headers]
 */
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { securityHeaderList } from "../../lib/runtime/security-headers.ts";
import { announce, HELLO_BODY, NOT_FOUND_BODY, userBody } from "./routes.ts";

const headers = process.argv[2] === "headers" ? securityHeaderList() : [];
const USERS = "/users/";

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.statusCode = status;
  res.setHeader("Content-Type", type);
  res.end(body);
}

const server = createServer((req, res) => {
  for (const [name, value] of headers) res.setHeader(name, value);
  const url = req.url ?? "/";
  switch (url) {
    case "/":
      return send(res, 200, "text/plain; charset=utf-8", HELLO_BODY);
    default:
      if (req.method === "GET" && url.startsWith(USERS) && url.length > USERS.length && url.indexOf("/", USERS.length) < 0) {
        return send(res, 200, "application/json", userBody("users", url.slice(USERS.length)));
      }
      res.setHeader("X-Content-Type-Options", "nosniff");
      return send(res, 404, "text/plain; charset=utf-8", NOT_FOUND_BODY);
  }
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => announce((server.address() as AddressInfo).port));
