/*
 * Test helpers for the router suites: a real server on 127.0.0.1 port 0,
 * closed when the test ends (test/_support/server.ts), and a raw request that sends the
 * request-target verbatim (no client-side path normalisation, unlike fetch).
 */
import { request, type IncomingHttpHeaders } from "node:http";
import type { TestContext } from "node:test";
import type { HandlerFunc } from "../../lib/http/index.ts";
import { startServer } from "../_support/server.ts";

/** A response as the tests see it. */
export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A function sending one request to the test server. */
export type Send = (method: string, target: string, headers?: Record<string, string>) => Promise<Reply>;

/** Starts `handler` on 127.0.0.1 port 0, closed in `t.after`, and returns a sender bound to it. */
export async function serve(t: TestContext, handler: HandlerFunc): Promise<Send> {
  const { port } = await startServer(t, handler);
  return (method, target, headers = {}) =>
    new Promise<Reply>((resolve, reject) => {
      const req = request({ host: "127.0.0.1", port, method, path: target, headers, agent: false }, (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (body += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        res.on("error", reject);
      });
      req.on("error", reject);
      req.end();
    });
}

/** A handler answering "<label> <pattern>" so a test sees which route ran. */
export function label(name: string): HandlerFunc {
  return function labelled(_req, res) {
    res.end(name);
  };
}
