/*
 * The database the authenticated-route benchmark shares between the latch
 * server and the bare one: the session and sign-in schemas, plus one live
 * session row created the way `Sessions.create` stores it (the SHA-256 of
 * a fresh token). Both servers open the same file and read that row.
 */
import { applySchema, mergeSchemas, OpenDB } from "../../lib/db/index.ts";
import { HashToken, NewToken, Schema as SessionSchema } from "../../lib/session/index.ts";
import { SESSION_COOKIE } from "../../lib/session/store.ts";
import { Schema as SigninSchema } from "../../lib/signin/index.ts";

/** The origin both servers run under (http: the cookie is not `__Host-`). */
export const BENCH_ORIGIN: string = "http://127.0.0.1";

/** The cookie name under `BENCH_ORIGIN`. */
export const BENCH_COOKIE: string = SESSION_COOKIE;

/** The idle timeout both servers enforce, in ms (lib/session's default). */
export const BENCH_IDLE_TIMEOUT: number = 7 * 24 * 60 * 60 * 1000;

/** The authenticated route both servers answer. */
export const ME_PATH: string = "/me";

/** The body of `GET /me` for a session. */
export function meBody(subject: string, method: string): string {
  return JSON.stringify({ subject, method });
}

/**
 * Creates the database at `path` with the schemas and one session row for
 * `subject`; returns the token to send as the cookie value.
 */
export function seedSessionDB(path: string, subject: string): string {
  const db = OpenDB(path);
  try {
    applySchema(db, mergeSchemas(SessionSchema, SigninSchema));
    const token = NewToken();
    const now = Date.now();
    db.prepare(
      "INSERT INTO sessions (token_hash, subject, method, auth_time, created_at, last_seen, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
    ).run(HashToken(token), subject, "magiclink", now, now, now, now + 24 * 60 * 60 * 1000);
    return token;
  } finally {
    db.close();
  }
}
