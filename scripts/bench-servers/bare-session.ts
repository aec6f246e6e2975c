/*
 * The authenticated route by hand on bare node:http: the same security
 * headers as latch, the cookie parsed, its token hashed (SHA-256,
 * base64url), one prepared SELECT on the same `sessions` table, the same
 * expiry and idle checks, and the same JSON reply; 401 without a session.
 *
 * Usage: node dist/scripts/bench-servers/bare-session.js <db path>
 */
import Database from "better-sqlite3";
import { createHash } from "node:crypto";
import { createServer } from "node:http";
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
const headers = securityHeaderList();
const prefix = BENCH_COOKIE + "=";

function token(cookie: string | undefined): string | undefined {
  if (cookie === undefined) return undefined;
  for (const part of cookie.split(";")) {
    const p = part.trim();
    if (p.startsWith(prefix)) return p.slice(prefix.length);
  }
  return undefined;
}

const server = createServer((req, res) => {
  for (const [name, value] of headers) res.setHeader(name, value);
  if (req.url !== ME_PATH) {
    res.statusCode = 404;
    res.end("404 page not found\n");
    return;
  }
  const t = token(req.headers.cookie);
  const row = t === undefined ? undefined : select.get(createHash("sha256").update(t).digest("base64url"));
  const now = Date.now();
  if (row === undefined || now >= row.expires_at || now >= row.last_seen + BENCH_IDLE_TIMEOUT) {
    res.statusCode = 401;
    res.setHeader("Content-Type", "text/plain; charset=utf-8");
    res.end("401 unauthorized: sign in first\n");
    return;
  }
  res.setHeader("Content-Type", "application/json");
  res.end(meBody(row.subject, row.method));
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => announce((server.address() as AddressInfo).port));
