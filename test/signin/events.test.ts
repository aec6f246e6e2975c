import assert from "node:assert/strict";
import { inspect } from "node:util";
import { describe, it } from "node:test";
import { AUTH_EVENT_KINDS } from "../../lib/session/auth-events.ts";
import { fanOutAuthEvents, logAuthEvents, type AuthEvent } from "../../lib/session/index.ts";
import { auditAuthEvents } from "../../lib/agent/index.ts";
import { EventStore, Schema as EventsSchema, auditStream } from "../../lib/events/index.ts";
import { LOG_MAILER_WARNING } from "../../lib/mail/log-mailer.ts";
import { MAX_ADDRESS_LENGTH } from "../../lib/signin/address.ts";
import type { AuthEventSink } from "../../lib/session/index.ts";
import { captureLog } from "../_support/http.ts";
import { CookieJar, count, extractCode, extractLink, startSigninApp } from "../_support/signin-app.ts";

describe("Signin auth events", () => {
  it("reports each sign-in step once, with subject and client, and logs no token, code or cookie", async (t) => {
    const events: AuthEvent[] = [];
    const app = await startSigninApp(t, { config: { OnAuthEvent: (e) => events.push(e) } });
    const browser = new CookieJar();
    await app.begin("ann@example.com", { jar: browser });
    const link = await app.linkFor("ann@example.com");
    const code = extractCode(app.smtp?.messages[0]?.parsed.text ?? "");
    await app.request("GET", link, { unbound: true });
    await app.request("POST", "/auth/code", { jar: browser, form: { code: "000000" === code ? "111111" : "000000" } });
    await app.request("GET", link, { jar: browser });
    await app.request("GET", "/auth/verify?token=nope", { jar: browser });
    await app.request("POST", "/signout", { jar: browser });
    const kinds = events.map((e) => [e.Kind, e.Subject, e.Method ?? e.Reason]);
    assert.deepEqual(kinds, [
      ["link_requested", "ann@example.com", undefined],
      ["signin_refused", undefined, "code"],
      ["signed_in", "ann@example.com", "magiclink"],
      ["signin_refused", undefined, "link"],
      ["signed_out", "ann@example.com", undefined],
    ]);
    assert.ok(events.every((e) => e.Client === "127.0.0.1" && e.At.getTime() === app.clock.now().getTime()));

    // The default sink: one structured line per event, no secret in any line.
    const log = captureLog();
    const sink = fanOutAuthEvents(logAuthEvents(log.logger), (e) => events.push(e));
    sink(events[2] ?? assert.fail("no event"));
    const lines = log.lines();
    assert.equal(lines.length, 1);
    const { time: _time, level: _level, msg: _msg, ...attrs } = lines[0] ?? {};
    assert.deepEqual(attrs, {
      event: "signed_in",
      at: app.clock.now().toISOString(),
      subject: "ann@example.com",
      client: "127.0.0.1",
      method: "magiclink",
    });
    assert.equal(events.length, 6, "the second sink got it too");
    const secrets = [new URL(link).searchParams.get("token") ?? "", code, browser.cookies.get("framework_signin") ?? ""];
    for (const line of [...lines, ...app.log.lines()]) {
      const text = inspect(line, { depth: null });
      for (const secret of secrets) assert.ok(!text.includes(secret), `a secret in "${String(line["msg"])}"`);
    }
  });

  it("logs every event through the component's logger by default", async (t) => {
    const app = await startSigninApp(t);
    await app.signIn("ann@example.com");
    const logged = app.log
      .lines()
      .filter((l) => l["msg"] === "auth event")
      .map((l) => l["event"]);
    assert.deepEqual(logged, ["link_requested", "signed_in"]);
    assert.equal(AUTH_EVENT_KINDS.length, 14);
  });
});

describe("Signin RevokeSession() and RevokeOtherSessions()", () => {
  it("ends one of the person's sessions by public id, never another person's, and all others on request", async (t) => {
    const events: AuthEvent[] = [];
    const app = await startSigninApp(t, { config: { OnAuthEvent: (e) => events.push(e) } });
    const first = await app.signIn("ann@example.com");
    const second = await app.signIn("ann@example.com");
    const third = await app.signIn("ann@example.com");
    const bob = await app.signIn("bob@example.com");
    const idOf = (subject: string, skip: number): string => {
      const rows = app.db
        .prepare<[string], { public_id: string }>("SELECT public_id FROM sessions WHERE subject = ? ORDER BY created_at, rowid")
        .all(subject);
      return rows[skip]?.public_id ?? "";
    };
    const secondID = idOf("ann@example.com", 1);
    // Bob cannot end Ann's session: same answer as an unknown id, nothing ends.
    for (const id of [secondID, "unknown", "", "x".repeat(5000)]) {
      const res = await app.request("POST", "/sessions/revoke", { jar: bob, form: { id } });
      assert.equal(res.status, 303, `${res.status} ${res.body}`);
      assert.equal(res.location, "/account");
    }
    assert.equal(count(app.db, "sessions", "subject = ?", "ann@example.com"), 3);
    const ended = await app.request("POST", "/sessions/revoke", { jar: first, form: { id: secondID } });
    assert.equal(ended.location, "/account");
    assert.equal((await app.request("GET", "/me", { jar: second })).status, 401);
    assert.equal((await app.request("GET", "/me", { jar: third })).status, 200);
    const others = await app.request("POST", "/sessions/revoke-others", { jar: first });
    assert.equal(others.location, "/account");
    assert.equal((await app.request("GET", "/me", { jar: third })).status, 401);
    assert.equal((await app.request("GET", "/me", { jar: first })).status, 200);
    assert.equal((await app.request("GET", "/me", { jar: bob })).status, 200);
    const own = await app.request("POST", "/sessions/revoke", { jar: first, form: { id: idOf("ann@example.com", 0) } });
    assert.equal(own.location, "/signin", "ending the current session signs out");
    assert.equal((await app.request("GET", "/me", { jar: first })).status, 401);
    assert.deepEqual(
      events.filter((e) => e.Kind === "sessions_ended").map((e) => [e.Subject, e.Reason, e.Count]),
      [
        ["ann@example.com", "revoked", 1],
        ["ann@example.com", "revoke_others", 1],
      ],
    );
  });
});

describe("Signout, RevokeSession and RevokeOtherSessions without crossOriginProtection in Wrap", () => {
  for (const headers of [{ "Sec-Fetch-Site": "cross-site" }, { Origin: "https://evil.example" }]) {
    it(`refuse a cross-origin POST themselves as Begin does (${Object.keys(headers)[0]}): 403, every session survives`, async (t) => {
      const events: AuthEvent[] = [];
      const app = await startSigninApp(t, { crossOriginProtection: false, config: { OnAuthEvent: (e) => events.push(e) } });
      const first = await app.signIn("ann@example.com");
      const second = await app.signIn("ann@example.com");
      const secondID = app.db
        .prepare<[], { public_id: string }>("SELECT public_id FROM sessions ORDER BY created_at, rowid")
        .all()[1]?.public_id;
      const posts: [string, Record<string, string>][] = [
        ["/signout", {}],
        ["/sessions/revoke", { id: secondID ?? "" }],
        ["/sessions/revoke-others", {}],
      ];
      for (const [path, form] of posts) {
        const res = await app.request("POST", path, { jar: first, form, headers });
        assert.equal(res.status, 403, path);
        assert.equal(res.body, "403 forbidden: cross-origin request refused\n", path);
        assert.deepEqual(res.setCookie, [], `${path} clears no cookie`);
      }
      assert.equal(count(app.db, "sessions", "subject = ?", "ann@example.com"), 2);
      assert.equal((await app.request("GET", "/me", { jar: first })).status, 200);
      assert.equal((await app.request("GET", "/me", { jar: second })).status, 200);
      assert.deepEqual(
        events.filter((e) => e.Kind === "signed_out" || e.Kind === "sessions_ended"),
        [],
      );
      // The same-origin form still signs out.
      assert.equal((await app.request("POST", "/signout", { jar: first })).location, "/signin");
      assert.equal((await app.request("GET", "/me", { jar: first })).status, 401);
    });
  }
});

describe("Signin auth events in the audit stream", () => {
  it("appends a sign-in at the longest valid address (254 characters) to an audit stream that reads back", async (t) => {
    const held: { sink?: AuthEventSink; events?: EventStore } = {};
    const app = await startSigninApp(t, {
      mail: "log",
      schema: EventsSchema,
      config: { OnAuthEvent: (e) => held.sink?.(e) },
      extend: (_mux, _auth, db, logger) => {
        held.events = new EventStore(db);
        held.sink = auditAuthEvents(held.events, logger);
      },
    });
    // RFC 5321 §4.5.3.1: a 64-octet local part and a domain of labels of at most 63 octets.
    const address = `${"a".repeat(64)}@${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(57)}.com`;
    assert.equal(address.length, MAX_ADDRESS_LENGTH);
    // Mail goes to the log (the test SMTP server refuses so long a recipient); the link is followed from there.
    assert.equal((await app.begin(address)).location, "/signin?sent=1");
    const warning = app.log.lines().find((l) => l["msg"] === LOG_MAILER_WARNING) ?? assert.fail("no link logged");
    assert.equal((await app.request("GET", extractLink(String(warning["text"])))).location, "/account");
    const events = held.events ?? assert.fail("no event store");
    assert.deepEqual(
      events.read(auditStream(address)).map((e) => [e.Type, e.Subject]),
      [["auth.signed_in", address]],
    );
  });

  it("mints no session whose sign-in cannot be recorded: the audit sink's failure rolls the session back", async (t) => {
    const held: { sink?: AuthEventSink } = {};
    const app = await startSigninApp(t, {
      schema: EventsSchema,
      config: { OnAuthEvent: (e) => held.sink?.(e) },
      extend: (_mux, _auth, db, logger) => {
        held.sink = auditAuthEvents(new EventStore(db), logger);
      },
    });
    app.db.exec(
      "CREATE TEMP TRIGGER refuse_events BEFORE INSERT ON main.events BEGIN SELECT RAISE(ABORT, 'injected: database or disk is full'); END",
    );
    await app.begin("ann@example.com");
    const landed = await app.request("GET", await app.linkFor("ann@example.com"), { jar: new CookieJar() });
    assert.equal(landed.status, 500);
    assert.equal(count(app.db, "sessions", "subject = ?", "ann@example.com"), 0, "no session without its event");
  });

  it("ends no session whose end cannot be recorded: sign-out and revoking keep the sessions", async (t) => {
    const held: { sink?: AuthEventSink } = {};
    const app = await startSigninApp(t, {
      schema: EventsSchema,
      config: { OnAuthEvent: (e) => held.sink?.(e) },
      extend: (_mux, _auth, db, logger) => {
        held.sink = auditAuthEvents(new EventStore(db), logger);
      },
    });
    const first = await app.signIn("ann@example.com");
    await app.signIn("ann@example.com");
    app.db.exec(
      "CREATE TEMP TRIGGER refuse_events BEFORE INSERT ON main.events BEGIN SELECT RAISE(ABORT, 'injected: database or disk is full'); END",
    );
    assert.equal((await app.request("POST", "/sessions/revoke-others", { jar: first })).status, 500);
    assert.equal((await app.request("POST", "/signout", { jar: first })).status, 500);
    assert.equal(count(app.db, "sessions", "subject = ?", "ann@example.com"), 2, "no session ended without its event");
  });
});
