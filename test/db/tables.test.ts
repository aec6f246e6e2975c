/*
 * A component that owns tables checks at construction that they exist and
 * names the schema to merge, so a schema left out of mergeSchemas fails at
 * start with its fix instead of "no such table" on the first request.
 */
import { describe, it, type TestContext } from "node:test";
import assert from "node:assert/strict";
import * as agent from "../../lib/agent/index.ts";
import { applySchema, mergeSchemas, OpenDB, requireTables, type DB, type Step } from "../../lib/db/index.ts";
import { EventStore, Schema as eventsSchema } from "../../lib/events/index.ts";
import { Kind, ScopeKind, StoreKind } from "../../lib/manifest/index.ts";
import { exclusiveStore } from "../../lib/manifest/store.ts";
import * as passkey from "../../lib/passkey/index.ts";
import * as session from "../../lib/session/index.ts";
import * as signin from "../../lib/signin/index.ts";

function openDB(t: TestContext, ...schemas: (readonly Step[])[]): DB {
  const db = OpenDB(":memory:");
  t.after(() => db.close());
  applySchema(db, mergeSchemas(...schemas));
  return db;
}

function refused(fn: () => unknown, message: string): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof Error && "code" in err);
    assert.equal(err.code, "ERR_DB_MISSING_TABLE");
    assert.equal(err.message, message);
    return true;
  });
}

const Origin = "https://app.example.org";

describe("a component whose schema was not merged", () => {
  it("sessions: names session.Schema", (t) => {
    refused(
      () => new session.Sessions(openDB(t), { Origin }),
      "sessions: table sessions is missing: merge session.Schema into mergeSchemas(...)",
    );
  });

  it("sign-in: names signin.Schema", (t) => {
    const db = openDB(t, session.Schema);
    refused(
      () => signin.create({ DB: db, Origin, InstanceKey: "k".repeat(32), SigninPath: "/signin", SignedInPath: "/account" }),
      "signin: table signin_links is missing: merge signin.Schema into mergeSchemas(...)",
    );
  });

  it("security notices: names signin.Schema", (t) => {
    const db = openDB(t, session.Schema);
    const Mailer = { Send: async (): Promise<void> => {} };
    refused(
      () => signin.securityNotices({ DB: db, Mailer, MailFrom: "app@example.org", Origin, SecurityPath: "/account" }),
      "security notices: table signin_notices is missing: merge signin.Schema into mergeSchemas(...)",
    );
  });

  it("passkey: names passkey.Schema", (t) => {
    const db = openDB(t, session.Schema);
    const Sessions = new session.Sessions(db, { Origin });
    refused(
      () => passkey.create({ DB: db, Sessions, Origin, ConfirmPath: "/confirm", SignedInPath: "/account", SigninPath: "/signin" }),
      "passkey: table passkey_credentials is missing: merge passkey.Schema into mergeSchemas(...)",
    );
  });

  it("events: names events.Schema", (t) => {
    refused(() => new EventStore(openDB(t)), "events: table events is missing: merge events.Schema into mergeSchemas(...)");
  });

  it("agent tokens and approvals: name agent.Schema", (t) => {
    const db = openDB(t, eventsSchema);
    refused(() => new agent.AgentTokens(db), "agent tokens: table agent_tokens is missing: merge agent.Schema into mergeSchemas(...)");
    refused(() => new agent.Approvals(db), "agent approvals: table agent_approvals is missing: merge agent.Schema into mergeSchemas(...)");
  });

  it("a resource's store: names its resourceSchema", (t) => {
    const db = openDB(t, eventsSchema);
    const spec = {
      Name: "memos",
      Route: "/memos",
      Store: StoreKind.Exclusive,
      Scope: ScopeKind.UserScoped,
      List: { Columns: [{ Field: "title" }] },
      Form: { Fields: [{ Name: "title", Label: "memos.title", Kind: Kind.Text }] },
    };
    refused(
      () => exclusiveStore(db, spec, new EventStore(db)),
      "resource memos: table memos is missing: merge resourceSchema(memos) into mergeSchemas(...)",
    );
  });

  it("is let through once every table is there", (t) => {
    const db = openDB(t, session.Schema, signin.Schema, passkey.Schema, eventsSchema, agent.Schema);
    assert.doesNotThrow(() => requireTables(db, "agent tokens", "agent.Schema", ["agent_tokens", "agent_approvals"]));
    refused(
      () => requireTables(db, "mine", "my.Schema", ["agent_tokens", "mine"]),
      "mine: table mine is missing: merge my.Schema into mergeSchemas(...)",
    );
  });
});
