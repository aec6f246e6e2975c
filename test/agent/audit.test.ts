import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { auditAuthEvents } from "../../lib/agent/index.ts";
import { AUTH_EVENT_TYPE_PREFIX, UNAUDITED_AUTH_EVENTS } from "../../lib/agent/audit.ts";
import { applySchema } from "../../lib/db/index.ts";
import { EventStore, Schema, auditStream } from "../../lib/events/index.ts";
import { AUTH_EVENT_KINDS } from "../../lib/session/auth-events.ts";
import { captureLog } from "../_support/http.ts";
import { open } from "../_support/db.ts";

describe("auditAuthEvents()", () => {
  it("appends every kind of auth event with a verified subject to that person's audit stream, as the human actor", (t) => {
    const db = open(t, ":memory:");
    applySchema(db, Schema);
    const events = new EventStore(db);
    const { logger } = captureLog();
    const sink = auditAuthEvents(events, logger);
    const at = new Date(Date.UTC(2026, 10, 24));
    for (const kind of AUTH_EVENT_KINDS)
      sink({ Kind: kind, At: at, Subject: "ada@example.com", Client: "127.0.0.1", Method: "magiclink", Reason: "r", Count: 2 });
    const stored = events.read(auditStream("ada@example.com"), 1);
    const audited = AUTH_EVENT_KINDS.filter((k) => k !== "link_requested" && k !== "rate_limited");
    assert.deepEqual(
      stored.map((e) => e.Type),
      audited.map((k) => `auth.${k}`),
    );
    assert.deepEqual([...UNAUDITED_AUTH_EVENTS].sort(), ["link_requested", "rate_limited"]);
    assert.equal(AUTH_EVENT_TYPE_PREFIX, "auth.");
    for (const e of stored) {
      assert.equal(e.Actor, "human");
      assert.equal(e.Subject, "ada@example.com");
      assert.deepEqual(e.Data, { client: "127.0.0.1", method: "magiclink", reason: "r", count: 2 });
    }
  });

  it("keeps an event without a subject out of every stream", (t) => {
    const db = open(t, ":memory:");
    applySchema(db, Schema);
    const events = new EventStore(db);
    auditAuthEvents(events, captureLog().logger)({ Kind: "rate_limited", At: new Date(), Client: "127.0.0.1", Reason: "client" });
    assert.deepEqual(db.prepare("SELECT count(*) AS n FROM events").get(), { n: 0 });
  });

  it("logs and throws a failing append, so the write it records rolls back with it", (t) => {
    const db = open(t, ":memory:");
    applySchema(db, Schema);
    const events = new EventStore(db);
    const { logger, lines } = captureLog();
    db.exec("DROP TABLE events");
    assert.throws(
      () => auditAuthEvents(events, logger)({ Kind: "signed_in", At: new Date(), Subject: "ada@example.com" }),
      /no such table/,
    );
    assert.equal(lines().filter((l) => l["msg"] === "audit append failed").length, 1);
  });
});
