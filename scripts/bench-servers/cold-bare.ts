/*
 * The cold-start baseline: a bare node:http server on the socket-activated
 * listener (fd 3, sd_listen_fds(3)) answering GET /healthz like latch does.
 *
 * Usage: systemd-socket-activate -l 127.0.0.1:PORT node dist/scripts/bench-servers/cold-bare.js
 */
import { createServer } from "node:http";

createServer((req, res) => {
  res.writeHead(req.url === "/healthz" ? 200 : 404, { "Content-Type": "application/json" });
  res.end(JSON.stringify({ status: req.url === "/healthz" ? "ok" : "not found" }));
}).listen({ fd: 3 });
process.on("SIGTERM", () => process.exit(0));
