/*
 * Helpers for the asset tests: fixture paths, a real server on 127.0.0.1
 * port 0 (test/_support/server.ts), and two clients (node:http for ordinary requests, a raw socket for
 * request lines node:http refuses to send).
 */
import { request, type IncomingHttpHeaders } from "node:http";
import { connect } from "node:net";
import { fileURLToPath } from "node:url";
import type { TestContext } from "node:test";
import type { HandlerFunc } from "../../lib/http/index.ts";
import { startServer } from "../_support/server.ts";

/** test/fixtures/assets, found from dist/test/assets at run time. */
export const FIXTURES: string = fileURLToPath(new URL("../../../test/fixtures/assets/", import.meta.url));

/** A response as seen by the test client. */
export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** Serves `handler` on 127.0.0.1 port 0 until the test ends; returns the port. */
export async function serve(t: TestContext, handler: HandlerFunc): Promise<number> {
  return (await startServer(t, handler)).port;
}

/** Sends one request with node:http and collects the raw (undecoded) body. */
export function fetchRaw(port: number, path: string, init: { method?: string; headers?: Record<string, string> } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port, path, method: init.method ?? "GET", headers: init.headers ?? {}, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end();
  });
}

/** Writes `GET <target> HTTP/1.1` byte for byte on a socket; returns the status and the whole raw reply. */
export function rawGet(port: number, target: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    socket.on("data", (c) => chunks.push(c));
    socket.on("error", reject);
    socket.on("end", () => {
      const text = Buffer.concat(chunks).toString("latin1");
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? "0");
      resolve({ status, text });
    });
    socket.write(
      Buffer.concat([
        Buffer.from("GET ", "latin1"),
        Buffer.from(target, "latin1"),
        Buffer.from(" HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", "latin1"),
      ]),
    );
  });
}
