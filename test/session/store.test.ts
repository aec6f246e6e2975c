import assert from "node:assert/strict";
import { IncomingMessage, ServerResponse } from "node:http";
import { Socket } from "node:net";
import { describe, it, type TestContext } from "node:test";
import { applySchema, OpenDB, type DB } from "../../lib/db/index.ts";
import { DEFAULT_IDLE_TIMEOUT, DEFAULT_TOUCH_INTERVAL, SESSION_COOKIE } from "../../lib/session/store.ts";
import { DefaultSessionTTL, HashToken, Schema, Sessions, type SessionsOptions } from "../../lib/session/index.ts";
import { cookiePair } from "../_support/http-client.ts";
import { FakeClock } from "../_support/clock.ts";

const MINUTE = 60 * 1000;
const DAY = 24 * 60 * MINUTE;
const ANN = { Subject: "ann@example.com", Method: "magiclink", AuthTime: new Date("2030-01-01T00:00:00Z") };

interface Store {
  db: DB;
  clock: FakeClock;
  sessions: Sessions;
}

function open(t: TestContext, options: Partial<SessionsOptions> = {}): Store {
  const db = OpenDB(":memory:");
  t.after(() => db.close());
  applySchema(db, Schema);
  const clock = new FakeClock();
  return { db, clock, sessions: new Sessions(db, { Origin: "http://app.test", Clock: clock, ...options }) };
}

/** A fresh request (the store caches per request) carrying `cookie`, and its response. */
function exchange(cookie?: string): { req: IncomingMessage; res: ServerResponse } {
  const req = new IncomingMessage(new Socket());
  if (cookie !== undefined) req.headers.cookie = cookie;
  return { req, res: new ServerResponse(req) };
}

function setCookies(res: ServerResponse): string[] {
  const v = res.getHeader("Set-Cookie");
  return Array.isArray(v) ? v : v === undefined ? [] : [String(v)];
}

/** Signs in and returns the Cookie header a browser would send back. */
function create(s: Store): string {
  const { req, res } = exchange();
  s.sessions.create(req, res, ANN);
  const [line = ""] = setCookies(res);
  return cookiePair(line);
}

function lastSeen(s: Store): number | undefined {
  const row: unknown = s.db.prepare("SELECT last_seen FROM sessions").get();
  return typeof row === "object" && row !== null && "last_seen" in row && typeof row.last_seen === "number" ? row.last_seen : undefined;
}

function rows(db: DB): number {
  const row: unknown = db.prepare("SELECT count(*) AS n FROM sessions").get();
  return typeof row === "object" && row !== null && "n" in row && typeof row.n === "number" ? row.n : -1;
}

describe("Sessions", () => {
  it("documents its defaults", () => {
    assert.equal(DefaultSessionTTL, 30 * DAY);
    assert.equal(DEFAULT_IDLE_TIMEOUT, 7 * DAY);
    assert.equal(DEFAULT_TOUCH_INTERVAL, 5 * MINUTE);
    assert.equal(SESSION_COOKIE, "framework_session");
  });

  it("Create() stores only the token hash and Read() finds the session by cookie", (t) => {
    const s = open(t);
    const cookie = create(s);
    const token = cookie.slice("framework_session=".length);
    const session = s.sessions.read(exchange(cookie).req);
    assert.ok(session);
    assert.equal(session.ID, HashToken(token));
    assert.deepEqual(
      { ...session },
      {
        ID: HashToken(token),
        ...ANN,
        CreatedAt: s.clock.now(),
        LastSeen: s.clock.now(),
        ExpiresAt: new Date(s.clock.now().getTime() + DefaultSessionTTL),
        PublicID: session.PublicID,
        Device: "",
      },
    );
    assert.equal(s.db.prepare("SELECT count(*) AS n FROM sessions WHERE token_hash = ?").pluck().get(token), 0);
    assert.equal(s.sessions.read(exchange(`${cookie}x`).req), undefined);
    assert.equal(s.sessions.read(exchange().req), undefined);
  });

  it("writes last_seen at most once per touch interval", (t) => {
    const s = open(t);
    const start = s.clock.now().getTime();
    const cookie = create(s);
    const seen: number[] = [];
    const told: number[] = [];
    for (let i = 0; i < 12; i++) {
      s.clock.advance(MINUTE);
      const session = s.sessions.read(exchange(cookie).req);
      assert.ok(session);
      seen.push((lastSeen(s) ?? 0) - start);
      told.push(session.LastSeen.getTime() - start);
    }
    // Reads at minutes 1..12: written at 5 and 10 only.
    assert.deepEqual(
      seen.map((ms) => ms / MINUTE),
      [0, 0, 0, 0, 5, 5, 5, 5, 5, 10, 10, 10],
    );
    // The session each read returns says what the row says.
    assert.deepEqual(told, seen);
  });

  it("rolls the idle timeout on use and ends an idle session", (t) => {
    const s = open(t, { IdleTimeout: 2 * DAY, TouchInterval: MINUTE });
    const cookie = create(s);
    for (let day = 0; day < 5; day++) {
      s.clock.advance(2 * DAY - 1);
      assert.ok(s.sessions.read(exchange(cookie).req), `day ${day}: active sessions roll`);
    }
    s.clock.advance(2 * DAY);
    assert.equal(s.sessions.read(exchange(cookie).req), undefined, "idle for the whole timeout");
  });

  it("ends a session at its absolute cap however active", (t) => {
    const s = open(t, { TTL: 3 * DAY, IdleTimeout: DAY, TouchInterval: MINUTE });
    const cookie = create(s);
    for (let h = 0; h < 71; h++) {
      s.clock.advance(60 * MINUTE);
      assert.ok(s.sessions.read(exchange(cookie).req), `hour ${h + 1}`);
    }
    s.clock.advance(60 * MINUTE - 1);
    assert.ok(s.sessions.read(exchange(cookie).req));
    s.clock.advance(1);
    assert.equal(s.sessions.read(exchange(cookie).req), undefined);
  });

  it("Rotate() issues a new token and deletes the old row", (t) => {
    const s = open(t);
    const cookie = create(s);
    s.clock.advance(MINUTE);
    const { req, res } = exchange(cookie);
    const stepped = new Date(s.clock.now());
    const rotated = s.sessions.rotate(req, res, "magiclink+passkey", stepped);
    assert.ok(rotated);
    const [line = ""] = setCookies(res);
    const next = cookiePair(line);
    assert.notEqual(next, cookie);
    assert.match(line, /^framework_session=[A-Za-z0-9_-]{43}; Max-Age=2592000; Path=\/; HttpOnly; SameSite=Lax$/);
    assert.equal(rows(s.db), 1);
    assert.equal(s.sessions.read(exchange(cookie).req), undefined, "the old token is dead");
    const read = s.sessions.read(exchange(next).req);
    assert.deepEqual(
      { Subject: read?.Subject, Method: read?.Method, AuthTime: read?.AuthTime, ID: read?.ID },
      { Subject: ANN.Subject, Method: "magiclink+passkey", AuthTime: stepped, ID: rotated.ID },
    );
    assert.equal(s.sessions.rotate(exchange().req, exchange().res, "x", stepped), undefined, "no session, nothing to rotate");
  });

  it("Create() over an existing session deletes the old one (rotation on sign-in)", (t) => {
    const s = open(t);
    const cookie = create(s);
    const { req, res } = exchange(cookie);
    s.sessions.create(req, res, { ...ANN, Subject: "bob@example.com" });
    assert.equal(rows(s.db), 1);
    assert.equal(s.sessions.read(exchange(cookie).req), undefined);
  });

  it("Destroy() deletes the row and clears the cookie", (t) => {
    const s = open(t);
    const cookie = create(s);
    const { req, res } = exchange(cookie);
    s.sessions.destroy(req, res);
    assert.deepEqual(setCookies(res), ["framework_session=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax"]);
    assert.equal(rows(s.db), 0);
    assert.equal(s.sessions.read(req), undefined, "the request no longer sees it either");
  });

  it("uses __Host- and Secure on an https origin and ignores the unprefixed name", (t) => {
    const s = open(t, { Origin: "https://app.test" });
    assert.equal(s.sessions.CookieName, "__Host-framework_session");
    const { req, res } = exchange();
    s.sessions.create(req, res, ANN);
    const [line = ""] = setCookies(res);
    assert.match(line, /^__Host-framework_session=[A-Za-z0-9_-]{43}; Max-Age=2592000; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
    const value = cookiePair(line).split("=")[1] ?? "";
    assert.ok(s.sessions.read(exchange(`__Host-framework_session=${value}`).req));
    assert.equal(s.sessions.read(exchange(`framework_session=${value}`).req), undefined);
  });

  it("Sweep() deletes expired and idle rows only", (t) => {
    const s = open(t, { TTL: 10 * DAY, IdleTimeout: 2 * DAY, TouchInterval: MINUTE });
    const idle = create(s);
    s.clock.advance(DAY);
    const live = create(s);
    s.clock.advance(DAY);
    assert.equal(s.sessions.Sweep(s.clock.now()), 1, "the first session is idle for 2 days");
    assert.ok(s.sessions.read(exchange(live).req));
    assert.equal(s.sessions.read(exchange(idle).req), undefined);
  });
});
