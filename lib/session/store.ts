/*
 * The session store: one row per session, keyed by the token's hash, live while `now < expires_at` and
 * `now < last_seen + IdleTimeout` (README). A new token for every sign-in and privilege change (`create`,
 * `rotate`); a person's sessions are listed and ended by a public id, every query filtered by subject.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { requireTables, SWEEP_STEP, type DB } from "../db/index.ts";
import { systemClock, type Clock } from "../http/index.ts";
import { LatchCookie, appendSetCookie, bindCredentialCheck, endStreamsOf, type CredentialCheck } from "../internal/index.ts";
import { setCurrentSession, lookedUp } from "./current.ts";
import type { Identity, Session } from "./session.ts";
import { HashToken, NewToken } from "./token.ts";
import { describeUserAgent } from "./user-agent.ts";

/** Absolute session lifetime used when the config does not override it: 30 days. */
export const DefaultSessionTTL: number = 30 * 24 * 60 * 60 * 1000;
/** Rolling idle timeout: 7 days without a request ends a session. */
export const DEFAULT_IDLE_TIMEOUT: number = 7 * 24 * 60 * 60 * 1000;
/** `last_seen` is written at most this often: 5 minutes. */
export const DEFAULT_TOUCH_INTERVAL: number = 5 * 60 * 1000;
/** Base name of the session cookie (`__Host-` prefixed on https origins). */
export const SESSION_COOKIE: string = "framework_session";

/** One row of a person's session list (`Sessions.List`). */
export interface SessionSummary {
  PublicID: string;
  Method: string;
  AuthTime: Date;
  CreatedAt: Date;
  LastSeen: Date;
  Device: string;
  /** Whether this is the session of the request that asked. */
  Current: boolean;
}

/** Options of `Sessions`. */
export interface SessionsOptions {
  /** Public origin; an https origin makes the cookie `__Host-` and `Secure`. */
  Origin: string;
  /** Absolute lifetime in ms. @default DefaultSessionTTL */
  TTL?: number;
  /** Idle timeout in ms. @default 7 days (DEFAULT_IDLE_TIMEOUT) */
  IdleTimeout?: number;
  /** Minimum ms between `last_seen` writes. @default 5 minutes (DEFAULT_TOUCH_INTERVAL) */
  TouchInterval?: number;
  /** @default systemClock */
  Clock?: Clock;
}

interface Row {
  token_hash: string;
  subject: string;
  method: string;
  auth_time: number;
  created_at: number;
  last_seen: number;
  expires_at: number;
  public_id: string;
  device: string;
}

/** A live session's columns, in the order `#get` selects them. */
type LiveColumns = [
  subject: string,
  method: string,
  authTime: number,
  createdAt: number,
  lastSeen: number,
  expiresAt: number,
  publicID: string,
  device: string,
];

/** The session store over one database handle. Apply `Schema` first. */
export class Sessions {
  readonly #clock: Clock;
  readonly #ttl: number;
  readonly #idle: number;
  readonly #touchEvery: number;
  readonly #cookie: LatchCookie;
  readonly #get;
  readonly #sql;
  readonly #onRevokeAll: ((subject: string) => unknown)[] = [];
  readonly #endAll: (subject: string) => number;
  readonly #holds: CredentialCheck;

  constructor(db: DB, options: SessionsOptions) {
    requireTables(db, "sessions", "session.Schema", ["sessions"]);
    this.#clock = options.Clock ?? systemClock;
    this.#ttl = options.TTL ?? DefaultSessionTTL;
    this.#idle = options.IdleTimeout ?? DEFAULT_IDLE_TIMEOUT;
    this.#touchEvery = options.TouchInterval ?? DEFAULT_TOUCH_INTERVAL;
    this.#cookie = new LatchCookie(SESSION_COOKIE, options.Origin);
    // Every column but the key the caller already holds. It runs on every
    // authenticated request, so its row comes back as an array (raw mode):
    // better-sqlite3 builds an object row name by name into a dictionary-mode
    // object, which cost 4-5% of the whole request (BENCHMARKS.md, "What moved (d)").
    this.#get = db
      .prepare<[string], LiveColumns>(
        "SELECT subject, method, auth_time, created_at, last_seen, expires_at, public_id, device FROM sessions WHERE token_hash = ?",
      )
      .raw(true);
    this.#sql = {
      insert: db.prepare(
        "INSERT INTO sessions (token_hash, subject, method, auth_time, created_at, last_seen, expires_at, public_id, device) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
      ),
      list: db.prepare<[string, number, number], Row>(
        "SELECT * FROM sessions WHERE subject = ? AND expires_at > ? AND last_seen > ? ORDER BY last_seen DESC, created_at DESC",
      ),
      revoke: db.prepare("DELETE FROM sessions WHERE subject = ? AND public_id = ?"),
      revokeOthers: db.prepare("DELETE FROM sessions WHERE subject = ? AND token_hash != ?"),
      revokeAll: db.prepare("DELETE FROM sessions WHERE subject = ?"),
      revokeEveryone: db.prepare("DELETE FROM sessions WHERE token_hash != ?"),
      touch: db.prepare("UPDATE sessions SET last_seen = ? WHERE token_hash = ?"),
      delete: db.prepare("DELETE FROM sessions WHERE token_hash = ?"),
      // Two statements, each along its own index: one with OR would gather every matching row before its LIMIT.
      sweepExpired: db.prepare("DELETE FROM sessions WHERE rowid IN (SELECT rowid FROM sessions WHERE expires_at <= ? LIMIT ?)"),
      sweepIdle: db.prepare("DELETE FROM sessions WHERE rowid IN (SELECT rowid FROM sessions WHERE last_seen <= ? LIMIT ?)"),
    };
    // The sessions and whatever else acts for the person (agent tokens, registered below) end together or not at all.
    this.#endAll = db.transaction((subject: string): number => {
      const ended = this.#sql.revokeAll.run(subject).changes;
      for (const hook of this.#onRevokeAll) hook(subject);
      return ended;
    });
    // Asked inside a write's transaction (lib/internal credential.ts): the row of the request's token still names `subject`.
    // When it does not, the request's session is unbound too, so the session gate answers it as it answers an expired one.
    this.#holds = (req, subject) => {
      const id = lookedUp(req)?.ID;
      if (id !== undefined && this.#get.get(id)?.[0] === subject) return true;
      setCurrentSession(req, null);
      return false;
    };
  }

  /** The session cookie's name. */
  get CookieName(): string {
    return this.#cookie.name;
  }

  /** Returns the request's live session (cached per request), or undefined; `last_seen` is written at most once per touch interval. */
  read(req: IncomingMessage): Session | undefined {
    const cached = lookedUp(req);
    if (cached !== undefined) return cached ?? undefined;
    const token = this.#cookie.read(req.headers.cookie);
    const session = token === undefined ? undefined : this.#lookup(HashToken(token));
    setCurrentSession(req, session ?? null);
    // A write that commits later asks again whether this session still acts for its subject (account README, "Writes in flight").
    if (session !== undefined) bindCredentialCheck(req, this.#holds, false);
    return session;
  }

  #lookup(hash: string): Session | undefined {
    const row = this.#get.get(hash);
    if (row === undefined) return undefined;
    const [, , , , lastSeen, expiresAt] = row;
    const now = this.#clock.now().getTime();
    if (now >= expiresAt || now >= lastSeen + this.#idle) return undefined;
    const session = toSession(hash, row);
    if (now - lastSeen >= this.#touchEvery) {
      this.#sql.touch.run(now, hash);
      session.LastSeen = new Date(now);
    }
    return session;
  }

  /** Mints a new session for `identity` and sets its cookie; any session the request carried is deleted (rotation on sign-in). */
  create(req: IncomingMessage, res: ServerResponse, identity: Identity): Session {
    this.#deleteCurrent(req);
    const token = NewToken();
    const hash = HashToken(token);
    const now = this.#clock.now().getTime();
    const expires = now + this.#ttl;
    const publicID = NewToken().slice(0, 22);
    const device = describeUserAgent(req.headers["user-agent"]);
    this.#sql.insert.run(hash, identity.Subject, identity.Method, identity.AuthTime.getTime(), now, now, expires, publicID, device);
    appendSetCookie(res, this.#cookie.set(token, this.#ttl / 1000));
    const session = toSession(hash, [identity.Subject, identity.Method, identity.AuthTime.getTime(), now, now, expires, publicID, device]);
    setCurrentSession(req, session);
    bindCredentialCheck(req, this.#holds, false);
    return session;
  }

  /** Replaces the request's session by a new one (new token) with a new method and auth time. */
  rotate(req: IncomingMessage, res: ServerResponse, method: string, authTime: Date): Session | undefined {
    const current = this.read(req);
    if (current === undefined) return undefined;
    return this.create(req, res, { Subject: current.Subject, Method: method, AuthTime: authTime });
  }

  /** Deletes the request's session row and clears the cookie. */
  destroy(req: IncomingMessage, res: ServerResponse): void {
    this.#deleteCurrent(req);
    appendSetCookie(res, this.#cookie.clear());
    setCurrentSession(req, null);
  }

  /** Lists `subject`'s live sessions, most recently seen first, `current` marked `Current`. */
  List(subject: string, current?: Session): SessionSummary[] {
    const now = this.#clock.now().getTime();
    return this.#sql.list.all(subject, now, now - this.#idle).map((row) => ({
      PublicID: row.public_id,
      Method: row.method,
      AuthTime: new Date(row.auth_time),
      CreatedAt: new Date(row.created_at),
      LastSeen: new Date(row.last_seen),
      Device: row.device,
      Current: row.token_hash === current?.ID,
    }));
  }

  /** Ends `subject`'s session with public id `publicID`; reports whether there was one. Another subject's id ends nothing. */
  revoke(subject: string, publicID: string): boolean {
    return this.#sql.revoke.run(subject, publicID).changes > 0;
  }

  /** Ends every session of `keep.Subject` except `keep` itself; returns how many ended. */
  revokeOthers(keep: Session): number {
    return this.#sql.revokeOthers.run(keep.Subject, keep.ID).changes;
  }

  /**
   * Ends every session of `subject` (an account disabled or deleted) and runs `onRevokeAll`, in one transaction; returns
   * how many. Their open event streams end too (lib/internal `endStreamsOf`).
   */
  RevokeAll(subject: string): number {
    const ended = this.#endAll(subject);
    endStreamsOf(subject);
    return ended;
  }

  /**
   * Ends every session of every person but `keep` (the operator's who asked: an incident, latch/operators); returns how
   * many. It runs no `onRevokeAll` hook: what else acts for people (agent tokens, grants) is ended by its own module
   * (`AccountRows.endEveryone`, lib/db), which also reaches people who hold no session.
   */
  RevokeEveryone(keep: Session): number {
    const ended = this.#sql.revokeEveryone.run(keep.ID).changes;
    endStreamsOf();
    return ended;
  }

  /**
   * Registers `hook` to run inside every `RevokeAll(subject)`'s transaction (a throw undoes it all): how a
   * module above ends what it holds for the person (`AgentTokens` its tokens) without sessions importing it.
   */
  onRevokeAll(hook: (subject: string) => unknown): void {
    this.#onRevokeAll.push(hook);
  }

  /** Deletes at most `limit` expired and idle sessions (one step of `sweepInSteps`, lib/db); returns how many. */
  Sweep(now: Date, limit: number = SWEEP_STEP): number {
    const t = now.getTime();
    const expired = this.#sql.sweepExpired.run(t, limit).changes;
    if (expired >= limit) return expired;
    return expired + this.#sql.sweepIdle.run(t - this.#idle, limit - expired).changes;
  }

  #deleteCurrent(req: IncomingMessage): void {
    const token = this.#cookie.read(req.headers.cookie);
    if (token !== undefined) this.#sql.delete.run(HashToken(token));
  }
}

function toSession(hash: string, [subject, method, authTime, createdAt, lastSeen, expiresAt, publicID, device]: LiveColumns): Session {
  return {
    ID: hash,
    Subject: subject,
    Method: method,
    AuthTime: new Date(authTime),
    CreatedAt: new Date(createdAt),
    LastSeen: new Date(lastSeen),
    ExpiresAt: new Date(expiresAt),
    PublicID: publicID,
    Device: device,
  };
}
