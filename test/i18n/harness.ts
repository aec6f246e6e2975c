/*
 * Test harness for the i18n suites: a real HTTP server on 127.0.0.1 port 0
 * around a handler (test/_support/server.ts), and a small client built on node:http that sends
 * exactly the headers given and never follows redirects.
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

/** Options of one test request. */
export interface Send {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

/** Starts `handler` on 127.0.0.1:0, closed when the test ends; returns its base URL. */
export async function serve(t: TestContext, handler: HandlerFunc): Promise<string> {
  return (await startServer(t, handler)).base;
}

/** Sends one request and reads the whole reply. */
export function send(url: string, options: Send = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? "GET", headers: options.headers ?? {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(options.body);
  });
}

/** Sends an urlencoded form by POST. */
export function postForm(url: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Reply> {
  return send(url, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(fields).toString(),
  });
}
