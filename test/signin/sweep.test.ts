import assert from "node:assert/strict";
import Database from "better-sqlite3";
import { copyFileSync, rmSync } from "node:fs";
import { describe, it } from "node:test";
import { setImmediate } from "node:timers/promises";
import { DEFAULT_IDLE_TIMEOUT } from "../../lib/session/store.ts";
import { DEFAULT_RATE_LIMITS, HashToken, NewToken } from "../../lib/signin/index.ts";
import { count, startSigninApp } from "../_support/signin-app.ts";

const HOUR = 60 * 60 * 1000;

describe("Signin Sweep()", () => {
  it("deletes expired links, expired and idle sessions and old rate events, and nothing else", async (t) => {
    const app = await startSigninApp(t);
    const jar = await app.signIn("ann@example.com"); // a live session, an account, 3 rate events
    await app.begin("bob@example.com"); // a live link, 3 rate events
    const now = app.clock.now().getTime();

    const link = app.db.prepare(
      "INSERT INTO signin_links (token_hash, purpose, address, expires_at) VALUES (?, 'signin', 'x@example.com', ?)",
    );
    link.run(HashToken(NewToken()), now - 1); // expired
    link.run(HashToken(NewToken()), now); // expires this instant
    link.run(HashToken(NewToken()), now + 1); // live

    const session = app.db.prepare(
      "INSERT INTO sessions (token_hash, subject, method, auth_time, created_at, last_seen, expires_at) VALUES (?, 'x@example.com', 'magiclink', 0, 0, ?, ?)",
    );
    session.run("expired", now, now); // absolute cap reached
    session.run("idle", now - DEFAULT_IDLE_TIMEOUT, now + HOUR); // idle timeout reached
    session.run("live", now - DEFAULT_IDLE_TIMEOUT + 1, now + 1);

    const longest = Math.max(DEFAULT_RATE_LIMITS.PerAddress.Window, DEFAULT_RATE_LIMITS.PerIP.Window, DEFAULT_RATE_LIMITS.Global.Window);
    const event = app.db.prepare("INSERT INTO signin_rate_events (bucket, at) VALUES ('ip:203.0.113.9', ?)");
    event.run(now - longest - 1);
    event.run(now - longest);
    event.run(now - longest + 1); // still inside the longest window

    const before = {
      links: count(app.db, "signin_links"),
      sessions: count(app.db, "sessions"),
      events: count(app.db, "signin_rate_events"),
      accounts: count(app.db, "signin_accounts"),
    };
    assert.deepEqual(before, { links: 4, sessions: 4, events: 9, accounts: 1 });

    assert.deepEqual(await app.auth.Sweep(app.clock.now()), { Links: 2, Sessions: 2, RateEvents: 2 });
    assert.deepEqual(
      {
        links: count(app.db, "signin_links"),
        sessions: count(app.db, "sessions"),
        events: count(app.db, "signin_rate_events"),
        accounts: count(app.db, "signin_accounts"),
      },
      { links: 2, sessions: 2, events: 7, accounts: 1 },
    );
    assert.equal(count(app.db, "sessions", "token_hash IN ('expired', 'idle')"), 0);
    assert.equal(count(app.db, "signin_links", "address = 'bob@example.com'"), 1);

    // What survived still works.
    assert.equal((await app.request("GET", "/me", { jar })).status, 200);
    assert.equal((await app.request("GET", await app.linkFor("bob@example.com"))).location, "/account");
    assert.deepEqual(await app.auth.Sweep(app.clock.now()), { Links: 0, Sessions: 0, RateEvents: 0 }, "a second sweep finds nothing");
  });

  it("removes a signed-in session once its idle timeout has passed", async (t) => {
    const app = await startSigninApp(t);
    await app.signIn("ann@example.com");
    app.clock.advance(DEFAULT_IDLE_TIMEOUT - 1);
    assert.equal((await app.auth.Sweep(app.clock.now())).Sessions, 0);
    app.clock.advance(1);
    assert.equal((await app.auth.Sweep(app.clock.now())).Sessions, 1);
    assert.equal(count(app.db, "sessions"), 0);
  });

  it("deletes in steps of 25 rows a table, each its own short transaction, the event loop free between steps", async (t) => {
    const app = await startSigninApp(t);
    const now = app.clock.now().getTime();
    const longest = Math.max(DEFAULT_RATE_LIMITS.PerAddress.Window, DEFAULT_RATE_LIMITS.PerIP.Window, DEFAULT_RATE_LIMITS.Global.Window);
    const link = app.db.prepare(
      "INSERT INTO signin_links (token_hash, purpose, address, expires_at) VALUES (?, 'signin', 'x@example.com', ?)",
    );
    const session = app.db.prepare(
      "INSERT INTO sessions (token_hash, subject, method, auth_time, created_at, last_seen, expires_at) VALUES (?, 'x@example.com', 'magiclink', 0, 0, ?, ?)",
    );
    const event = app.db.prepare("INSERT INTO signin_rate_events (bucket, at) VALUES ('ip:203.0.113.9', ?)");
    app.db.transaction(() => {
      for (let n = 0; n < 26; n++) {
        link.run(`expired-${n}`, now - 1);
        session.run(`expired-${n}`, now, now);
        event.run(now - longest - 1);
      }
    })();

    const counts = (): number[] => [count(app.db, "signin_links"), count(app.db, "sessions"), count(app.db, "signin_rate_events")];
    const sweeping = app.auth.Sweep(app.clock.now());
    // The first step has run, the rest waits for the event loop, which turns after every step.
    assert.deepEqual(counts(), [1, 26, 26]);
    await setImmediate();
    assert.deepEqual(counts(), [0, 26, 26], "the links' last step");
    await setImmediate();
    assert.deepEqual(counts(), [0, 1, 26], "then the sessions' first");
    assert.deepEqual(await sweeping, { Links: 26, Sessions: 26, RateEvents: 26 });
    assert.deepEqual(counts(), [0, 0, 0]);
  });

  it("copies each step's pages into the database file before the event loop turns, not at some later commit (issue 27)", async (t) => {
    const app = await startSigninApp(t);
    const link = app.db.prepare(
      "INSERT INTO signin_links (token_hash, purpose, address, expires_at) VALUES (?, 'signin', 'x@example.com', ?)",
    );
    app.db.transaction(() => {
      for (let n = 0; n < 26; n++) link.run(`expired-${n}`, app.clock.now().getTime() - 1);
    })();
    app.db.pragma("wal_checkpoint(TRUNCATE)");
    const sweeping = app.auth.Sweep(app.clock.now());
    // The database file without its log (a copy: SQLite finds no log beside it) already lacks the first step's 25 links.
    const copy = `${app.dbPath}.copy`;
    copyFileSync(app.dbPath, copy);
    t.after(() => rmSync(copy, { force: true }));
    const file = new Database(copy, { readonly: true });
    assert.equal(file.prepare("SELECT count(*) FROM signin_links").pluck().get(), 1);
    file.close();
    assert.deepEqual(await sweeping, { Links: 26, Sessions: 0, RateEvents: 0 });
  });
});
