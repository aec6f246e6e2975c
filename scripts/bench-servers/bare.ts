/*
 * The baselines: bare node:http with a `switch` on the URL and no router,
 * answering the benchmark application (routes.ts) by hand. The argument
 * picks how the response is written:
 *
 *   plain       `setHeader("Content-Type")`, then `end(body)`: no
 *               security headers.
 *   headers     first the exact security headers latch sets
 *               (`securityHeaderList()`), one `setHeader` each, then as
 *               `plain`.
 *   rawheaders  latch's exact response (status, the same security headers,
 *               Content-Type and Content-Length) written the fastest way
 *               node:http allows: one `writeHead(status, raw)` with a flat
 *               raw header array prepared at start (only Content-Length is
 *               filled in per response), then `end(body)`. The physical
 *               limit for a server sending latch's responses.
 *
 * Usage: node dist/scripts/bench-servers/bare.js [plain|headers|rawheaders]
 */
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { securityHeaderList } from "../../lib/runtime/security-headers.ts";
import { announce, HELLO_BODY, NOT_FOUND_BODY, userBody } from "./routes.ts";

const mode = process.argv[2] ?? "plain";
const headers = mode === "headers" ? securityHeaderList() : [];
const USERS = "/users/";
const TEXT = "text/plain; charset=utf-8";
const JSON_TYPE = "application/json";

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.statusCode = status;
  res.setHeader("Content-Type", type);
  res.end(body);
}

/**
 * The flat raw header array of one content type: the security headers,
 * Content-Type, then Content-Length, whose value (the last slot) each
 * response fills in. One array per content type, reused: node:http reads it
 * inside `writeHead` and keeps no reference.
 */
function rawHeaders(type: string): string[] {
  return [...securityHeaderList().flat(), "Content-Type", type, "Content-Length", ""];
}

const raw = { text: rawHeaders(TEXT), json: rawHeaders(JSON_TYPE) };

function sendRaw(res: ServerResponse, status: number, prepared: string[], body: string): void {
  prepared[prepared.length - 1] = String(Buffer.byteLength(body));
  res.writeHead(status, prepared);
  res.end(body);
}

const server =
  mode === "rawheaders"
    ? createServer((req, res) => {
        const url = req.url ?? "/";
        if (url === "/") return sendRaw(res, 200, raw.text, HELLO_BODY);
        if (req.method === "GET" && url.startsWith(USERS) && url.length > USERS.length && url.indexOf("/", USERS.length) < 0) {
          return sendRaw(res, 200, raw.json, userBody("users", url.slice(USERS.length)));
        }
        return sendRaw(res, 404, raw.text, NOT_FOUND_BODY);
      })
    : createServer((req, res) => {
        for (const [name, value] of headers) res.setHeader(name, value);
        const url = req.url ?? "/";
        switch (url) {
          case "/":
            return send(res, 200, TEXT, HELLO_BODY);
          default:
            if (req.method === "GET" && url.startsWith(USERS) && url.length > USERS.length && url.indexOf("/", USERS.length) < 0) {
              return send(res, 200, JSON_TYPE, userBody("users", url.slice(USERS.length)));
            }
            res.setHeader("X-Content-Type-Options", "nosniff");
            return send(res, 404, TEXT, NOT_FOUND_BODY);
        }
      });
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => announce((server.address() as AddressInfo).port));
