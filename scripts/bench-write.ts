/*
 * The CPU time of answering (b)'s routed JSON request, in process and
 * without a socket: each way of answering is handed a fresh
 * `IncomingMessage` and response (as node:http makes them per request)
 * N times, and the process's CPU time (user + system) is divided by N.
 * Node's parser, the socket and the system calls are left out: they are
 * the same for every server. Each way runs in its own process, so none
 * warms the code another runs. On a machine shared with other work this
 * moves far less than req/s (BENCHMARKS.md, (b)).
 *
 *   node:http+headers     the baseline, one setHeader each, then as node:http
 *   node:http+rawheaders  one writeHead(status, raw) with a prepared array
 *   latch                 Handler({ Mux }) on Serve's request and response classes
 *   latch (setHeader)     Handler({ Mux }) on node:http's ServerResponse
 *
 * Usage: node dist/scripts/bench-write.js [iterations, 300000] [rounds, 3]
 */
import { spawnSync } from "node:child_process";
import { IncomingMessage, ServerResponse } from "node:http";
import { Socket } from "node:net";
import { fileURLToPath } from "node:url";
import { discardLogger, type HandlerFunc } from "../lib/http/index.ts";
import { Handler } from "../lib/index.ts";
import { Mux, PathValue } from "../lib/router/index.ts";
import { SERVE_CLASSES } from "../lib/runtime/serve.ts";
import { securityHeaderList } from "../lib/runtime/security-headers.ts";
import { otherBody, ROUTES, userBody } from "./bench-servers/routes.ts";

const WAYS = ["node:http+headers", "node:http+rawheaders", "latch", "latch (setHeader)"] as const;
type Way = (typeof WAYS)[number];

function send(res: ServerResponse, type: string, body: string): void {
  res.statusCode = 200;
  res.setHeader("Content-Type", type);
  res.end(body);
}

function latchHandler(): HandlerFunc {
  const mux = new Mux();
  for (const route of ROUTES) {
    const resource = route.path.split("/")[1] ?? "";
    const read = route.method === "GET" && route.path.endsWith("{id}");
    mux.Handle(
      `${route.method} ${route.path}`,
      read
        ? (req, res) => send(res, "application/json", userBody(resource, PathValue(req, "id")))
        : (_req, res) => send(res, "application/json", otherBody(route.method, route.path)),
    );
  }
  return Handler({ Mux: mux, Logger: discardLogger })[0];
}

function handlerFor(way: Way): HandlerFunc {
  const list = securityHeaderList();
  const raw = [...list.flat(), "Content-Type", "application/json", "Content-Length", ""];
  const id = (req: IncomingMessage): string => (req.url ?? "").slice("/users/".length);
  switch (way) {
    case "node:http+headers":
      return (req, res) => {
        for (const [name, value] of list) res.setHeader(name, value);
        send(res, "application/json", userBody("users", id(req)));
      };
    case "node:http+rawheaders":
      return (req, res) => {
        const body = userBody("users", id(req));
        raw[raw.length - 1] = String(Buffer.byteLength(body));
        res.writeHead(200, raw);
        res.end(body);
      };
    default:
      return latchHandler();
  }
}

/** Answers one request the way `way` does; the response keeps what it would have written. */
function answer(way: Way, handler: HandlerFunc, socket: Socket): ServerResponse {
  const classes = way === "latch" ? SERVE_CLASSES : { IncomingMessage, ServerResponse };
  const req = new classes.IncomingMessage(socket);
  req.method = "GET";
  req.url = "/users/42";
  req.headers = { host: "127.0.0.1" };
  req.httpVersionMajor = 1;
  req.httpVersionMinor = 1;
  const res = new classes.ServerResponse(req);
  res.shouldKeepAlive = true;
  void handler(req, res);
  return res;
}

/** Microseconds of CPU time per answer, after a warm-up of a sixth as many. */
function measure(way: Way, n: number): number {
  const handler = handlerFor(way);
  const socket = new Socket();
  for (let i = 0; i < n / 6; i++) answer(way, handler, socket);
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++) answer(way, handler, socket);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / n;
}

const [first = "", second = ""] = process.argv.slice(2);
if (WAYS.includes(first as Way)) {
  process.stdout.write(JSON.stringify(measure(first as Way, Number(second))) + "\n");
} else {
  const n = Number(first || 300_000);
  const rounds = Number(second || 3);
  const self = fileURLToPath(import.meta.url);
  const runs = new Map<Way, number[]>(WAYS.map((w) => [w, []]));
  for (let r = 0; r < rounds; r++) {
    for (const way of WAYS) {
      const child = spawnSync(process.execPath, [self, way, String(n)], { encoding: "utf8" });
      if (child.status !== 0) throw new Error(`bench-write: ${way} failed: ${child.stderr}`);
      runs.get(way)?.push(Number(child.stdout));
    }
  }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  const raw = median(runs.get("node:http+rawheaders") ?? []);
  process.stdout.write(`CPU time per answer of (b), in process, median of ${rounds} rounds of ${n}\n`);
  for (const [way, xs] of runs) {
    const m = median(xs);
    process.stdout.write(
      `${way.padEnd(22)} ${m.toFixed(2).padStart(6)} us   x rawheaders ${(m / raw).toFixed(2)}   (${xs.map((x) => x.toFixed(2)).join(", ")})\n`,
    );
  }
}
