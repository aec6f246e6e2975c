/*
 * The cold-start baseline: a bare node:http server on the socket-activated
 * listener (fd 3, sd_listen_fds(3)), or on `--addr HOST:PORT` where
 * systemd-socket-activate is missing, answering GET /healthz like latch does.
 *
 * Usage: systemd-socket-activate -l 127.0.0.1:PORT node dist/scripts/bench-servers/cold-bare.js
 *        node dist/scripts/bench-servers/cold-bare.js --addr 127.0.0.1:PORT
 */
import { createServer } from "node:http";

const at = process.argv.indexOf("--addr");
const addr = at < 0 ? undefined : new URL(`http://${process.argv[at + 1] ?? ""}`);
createServer((req, res) => {
  res.writeHead(req.url === "/healthz" ? 200 : 404, { "Content-Type": "application/json" });
  res.end(JSON.stringify({ status: req.url === "/healthz" ? "ok" : "not found" }));
}).listen(addr === undefined ? { fd: 3 } : { host: addr.hostname, port: Number(addr.port) });
process.on("SIGTERM", () => process.exit(0));
