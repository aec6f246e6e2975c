/*
 * latch's authenticated route: the full stack (`Handler`) over a `Mux`
 * whose `GET /me` sits behind the sign-in component's `RequireSession`
 * (cookie -> HashToken -> one indexed SELECT on `sessions`, with
 * `last_seen` written at most every 5 minutes), answering the session's
 * subject as JSON. The server is built as `Serve` builds it
 * (`SERVE_CLASSES`) without `Serve`'s connection caps.
 *
 * Usage: node dist/scripts/bench-servers/latch-session.js <db path>
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { OpenDB } from "../../lib/db/index.ts";
import { discardLogger } from "../../lib/http/index.ts";
import { Handler } from "../../lib/index.ts";
import { Mux } from "../../lib/router/index.ts";
import { SERVE_CLASSES } from "../../lib/runtime/serve.ts";
import { currentSession } from "../../lib/session/index.ts";
import { create } from "../../lib/signin/index.ts";
import { announce } from "./routes.ts";
import { BENCH_ORIGIN, ME_PATH, meBody } from "./session-db.ts";

const path = process.argv[2];
if (path === undefined) throw new Error("usage: latch-session.js <db path>");
const db = OpenDB(path);
const auth = create({
  DB: db,
  Origin: BENCH_ORIGIN,
  InstanceKey: "bench-instance-key-0123456789abcdef",
  SigninPath: "/signin",
  SignedInPath: ME_PATH,
  Logger: discardLogger,
});
const mux = new Mux();
mux.With(auth.RequireSession).Handle(`GET ${ME_PATH}`, (req, res) => {
  const session = currentSession(req);
  res.setHeader("Content-Type", "application/json");
  res.end(meBody(session?.Subject ?? "", session?.Method ?? ""));
});
const [handler] = Handler({ Mux: mux, DB: db, Logger: discardLogger });
const server = createServer(SERVE_CLASSES, handler);
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => announce((server.address() as AddressInfo).port));
