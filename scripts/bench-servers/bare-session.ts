/*
 * The authenticated route by hand on bare node:http: the same security
 * headers as latch, the cookie parsed, its token hashed (SHA-256,
 * base64url), one prepared SELECT on the same `sessions` table, the same
 * expiry and idle checks, and the same JSON reply; 401 without a session.
 * Each answer is written the fastest way node:http allows, as the
 * `rawheaders` baseline of bare.ts: one `writeHead(status, raw)` with a
 * header array prepared at start, then `end(body)`.
 *
 * Usage: node dist/scripts/bench-servers/bare-session.js <db path>
 */
import Database from "better-sqlite3";
import { createHash } from "node:crypto";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { securityHeaderList } from "../../lib/runtime/security-headers.ts";
import { announce } from "./routes.ts";
import { BENCH_COOKIE, BENCH_IDLE_TIMEOUT, ME_PATH, meBody } from "./session-db.ts";

interface Row {
  subject: string;
  method: string;
  last_seen: number;
  expires_at: number;
}

const path = process.argv[2];
if (path === undefined) throw new Error("usage: bare-session.js <db path>");
const db = new Database(path);
const select = db.prepare<[string], Row>("SELECT subject, method, last_seen, expires_at FROM sessions WHERE token_hash = ?");
const prefix = BENCH_COOKIE + "=";

function token(cookie: string | undefined): string | undefined {
  if (cookie === undefined) return undefined;
  for (const part of cookie.split(";")) {
    const p = part.trim();
    if (p.startsWith(prefix)) return p.slice(prefix.length);
  }
  return undefined;
}

// The security headers, Content-Type, then Content-Length, its value (the last slot) filled in per answer.
function rawHeaders(type: string): string[] {
  return [...securityHeaderList().flat(), "Content-Type", type, "Content-Length", ""];
}

const raw = { text: rawHeaders("text/plain; charset=utf-8"), json: rawHeaders("application/json") };

function send(res: ServerResponse, status: number, prepared: string[], body: string): void {
  prepared[prepared.length - 1] = String(Buffer.byteLength(body));
  res.writeHead(status, prepared);
  res.end(body);
}

const server = createServer((req, res) => {
  if (req.url !== ME_PATH) return send(res, 404, raw.text, "404 page not found\n");
  const t = token(req.headers.cookie);
  const row = t === undefined ? undefined : select.get(createHash("sha256").update(t).digest("base64url"));
  const now = Date.now();
  if (row === undefined || now >= row.expires_at || now >= row.last_seen + BENCH_IDLE_TIMEOUT) {
    return send(res, 401, raw.text, "401 unauthorized: sign in first\n");
  }
  return send(res, 200, raw.json, meBody(row.subject, row.method));
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => announce((server.address() as AddressInfo).port));
