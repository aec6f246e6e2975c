import assert from "node:assert/strict";
import { IncomingMessage, ServerResponse } from "node:http";
import { Socket } from "node:net";
import { describe, it, type TestContext } from "node:test";
import { applySchema, OpenDB, type DB } from "../../lib/db/index.ts";
import { DEFAULT_IDLE_TIMEOUT } from "../../lib/session/store.ts";
import { MAX_DEVICE_LENGTH, describeUserAgent } from "../../lib/session/user-agent.ts";
import { Schema, Sessions, type Session } from "../../lib/session/index.ts";
import { FakeClock } from "../_support/clock.ts";

const MINUTE = 60 * 1000;
const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
const IPHONE =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";

function open(t: TestContext): { db: DB; clock: FakeClock; sessions: Sessions } {
  const db = OpenDB(":memory:");
  t.after(() => db.close());
  applySchema(db, Schema);
  const clock = new FakeClock();
  return { db, clock, sessions: new Sessions(db, { Origin: "http://app.test", Clock: clock }) };
}

/** Signs `subject` in from a browser sending `ua`; returns the new session. */
function signIn(sessions: Sessions, subject: string, ua: string | undefined, now: Date): Session {
  const req = new IncomingMessage(new Socket());
  if (ua !== undefined) req.headers["user-agent"] = ua;
  return sessions.create(req, new ServerResponse(req), { Subject: subject, Method: "magiclink", AuthTime: now });
}

describe("Sessions.List()", () => {
  it("lists a subject's live sessions with created, last seen, method, device, and marks the current one", (t) => {
    const { clock, sessions } = open(t);
    const laptop = signIn(sessions, "ann@example.com", FIREFOX, clock.now());
    clock.advance(MINUTE);
    const phone = signIn(sessions, "ann@example.com", IPHONE, clock.now());
    signIn(sessions, "bob@example.com", FIREFOX, clock.now());
    const list = sessions.List("ann@example.com", laptop);
    assert.deepEqual(
      list.map((s) => [s.Device, s.Current]),
      [
        ["Safari on iOS", false],
        ["Firefox on Linux", true],
      ],
    );
    assert.deepEqual(list[1], {
      PublicID: laptop.PublicID,
      Method: "magiclink",
      AuthTime: laptop.AuthTime,
      CreatedAt: laptop.CreatedAt,
      LastSeen: laptop.LastSeen,
      Device: "Firefox on Linux",
      Current: true,
    });
    assert.match(phone.PublicID, /^[A-Za-z0-9_-]{22}$/);
    assert.notEqual(phone.PublicID, phone.ID, "the public id is not the row key");
    assert.ok(!phone.ID.startsWith(phone.PublicID));
    // Idle sessions are not live and are not listed.
    clock.advance(DEFAULT_IDLE_TIMEOUT);
    assert.deepEqual(sessions.List("ann@example.com"), []);
  });

  it("ends one session by public id, only the subject's own, all others but the current, and all of them", (t) => {
    const { db, clock, sessions } = open(t);
    const a = signIn(sessions, "ann@example.com", FIREFOX, clock.now());
    const b = signIn(sessions, "ann@example.com", IPHONE, clock.now());
    const c = signIn(sessions, "ann@example.com", undefined, clock.now());
    const bob = signIn(sessions, "bob@example.com", FIREFOX, clock.now());
    assert.equal(sessions.revoke("bob@example.com", a.PublicID), false, "another subject's id ends nothing");
    assert.equal(sessions.revoke("ann@example.com", b.PublicID), true);
    assert.equal(sessions.revoke("ann@example.com", b.PublicID), false);
    assert.deepEqual(
      sessions
        .List("ann@example.com")
        .map((s) => s.PublicID)
        .sort(),
      [a.PublicID, c.PublicID].sort(),
    );
    assert.equal(sessions.revokeOthers(a), 1);
    assert.deepEqual(
      sessions.List("ann@example.com", a).map((s) => [s.PublicID, s.Current]),
      [[a.PublicID, true]],
    );
    assert.equal(sessions.List("bob@example.com")[0]?.PublicID, bob.PublicID);
    const rows: unknown = db.prepare("SELECT count(*) AS n FROM sessions").get();
    assert.deepEqual(rows, { n: 2 });
    // An account the application disables: every session ends, another subject's stay.
    signIn(sessions, "ann@example.com", IPHONE, clock.now());
    // What a module above registered (agent tokens) ends in the same transaction; a throwing hook undoes the whole revocation.
    const ended: string[] = [];
    sessions.onRevokeAll((subject) => ended.push(subject));
    sessions.onRevokeAll((subject) => {
      if (subject === "bob@example.com") throw new Error("hook failed");
    });
    assert.throws(() => sessions.RevokeAll("bob@example.com"), /hook failed/);
    assert.equal(sessions.List("bob@example.com").length, 1, "bob's session survives the failed revocation");
    assert.equal(sessions.RevokeAll("ann@example.com"), 2);
    assert.deepEqual(ended, ["bob@example.com", "ann@example.com"]);
    assert.deepEqual(sessions.List("ann@example.com"), []);
    assert.equal(sessions.List("bob@example.com").length, 1);
  });
});

describe("Sessions.RevokeEveryone()", () => {
  it("ends every session of every person but the one kept, and runs no per-person hook", (t) => {
    const { clock, sessions } = open(t);
    const operator = signIn(sessions, "op@example.com", FIREFOX, clock.now());
    signIn(sessions, "op@example.com", IPHONE, clock.now());
    signIn(sessions, "ann@example.com", FIREFOX, clock.now());
    signIn(sessions, "bob@example.com", IPHONE, clock.now());
    const hooked: string[] = [];
    sessions.onRevokeAll((subject) => hooked.push(subject));
    assert.equal(sessions.RevokeEveryone(operator), 3);
    assert.deepEqual(
      sessions.List("op@example.com", operator).map((s) => [s.PublicID, s.Current]),
      [[operator.PublicID, true]],
    );
    assert.deepEqual([sessions.List("ann@example.com"), sessions.List("bob@example.com"), hooked], [[], [], []]);
  });
});

describe("session/002-public-id-device", () => {
  it("gives sessions that existed before it a distinct public id", (t) => {
    const db = OpenDB(":memory:");
    t.after(() => db.close());
    const [first, second] = Schema;
    assert.ok(first !== undefined && second !== undefined);
    applySchema(db, [first]);
    const insert = db.prepare(
      "INSERT INTO sessions (token_hash, subject, method, auth_time, created_at, last_seen, expires_at) VALUES (?, 's', 'm', 0, 0, 0, 1)",
    );
    for (const hash of ["h1", "h2", "h3"]) insert.run(hash);
    applySchema(db, [first, second]);
    const ids = db.prepare<[], { public_id: string; device: string }>("SELECT public_id, device FROM sessions").all();
    assert.equal(new Set(ids.map((r) => r.public_id)).size, 3);
    assert.ok(ids.every((r) => /^[0-9a-f]{32}$/.test(r.public_id) && r.device === ""));
  });
});

describe("describeUserAgent()", () => {
  const table: { ua: string | undefined; want: string }[] = [
    { ua: FIREFOX, want: "Firefox on Linux" },
    { ua: IPHONE, want: "Safari on iOS" },
    {
      ua: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.0.0",
      want: "Edge on Windows",
    },
    {
      ua: "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36",
      want: "Chrome on Android",
    },
    {
      ua: "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15",
      want: "Safari on macOS",
    },
    { ua: "curl/8.5.0", want: "curl" },
    { ua: "", want: "" },
    { ua: undefined, want: "" },
    { ua: "x".repeat(10_000), want: "" },
  ];
  for (const { ua, want } of table) {
    it(`describes ${JSON.stringify((ua ?? "undefined").slice(0, 40))} as ${JSON.stringify(want)}`, () => {
      const got = describeUserAgent(ua);
      assert.equal(got, want);
      assert.ok(got.length <= MAX_DEVICE_LENGTH);
    });
  }
});
