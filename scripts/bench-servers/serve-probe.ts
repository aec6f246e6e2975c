/*
 * A server for the slow-connections scenario, run under `prlimit
 * --nofile=1024`: latch's `Serve` (connection caps, head timeout) with
 * "serve", or, with "plain", the same `Handler` on a bare
 * `http.createServer` (Node's defaults: no cap, what `Serve` did before the
 * caps). Both answer `GET /healthz` from the chrome (`SELECT 1` on a
 * database in a temporary directory, left behind in /tmp).
 *
 * Usage: node dist/scripts/bench-servers/serve-probe.js serve|plain
 */
import { mkdtempSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { discardLogger, newLogger } from "../../lib/http/index.ts";
import { Handler, Serve } from "../../lib/index.ts";
import { announce } from "./routes.ts";

const mux = (): void => {};
// Like an application, both hold a SQLite database (the file, its WAL and shared memory: three descriptors).
const DBPath = join(mkdtempSync(join(tmpdir(), "latch-slow-")), "app.db");
if (process.argv[2] === "plain") {
  const [handler] = Handler({ Mux: mux, Logger: discardLogger, DBPath });
  const server = createServer(handler);
  server.listen({ port: 0, host: "127.0.0.1", backlog: 511 }, () => announce((server.address() as AddressInfo).port));
} else {
  // Serve logs "listening" with its address: announce the port from that line.
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      const port = /"msg":"listening","addr":"[^"]*:(\d+)"/.exec(chunk.toString())?.[1];
      if (port !== undefined) announce(Number(port));
      done();
    },
  });
  await Serve({ Mux: mux, Addr: "127.0.0.1:0", Logger: newLogger({ stream }), DBPath });
}
