/*
 * Every change to a resource's records, of both store kinds, is appended
 * as an event with its actor in the change's own transaction. A failure
 * injected between the two (a SQLite trigger that RAISEs on the events
 * insert, as a full disk would, or on the record's write) leaves both or
 * neither: no effect without its event, no event without its effect.
 */
import assert from "node:assert/strict";
import type { IncomingMessage } from "node:http";
import { describe, it, type TestContext } from "node:test";
import { AgentTokens, humanActor, Schema as AgentSchema, ToolRegistry, verifyBearer } from "../../lib/agent/index.ts";
import { agentActor } from "../../lib/agent/actor.ts";
import { applySchema, type DB } from "../../lib/db/index.ts";
import { EventStore, Schema } from "../../lib/events/index.ts";
import { Kind, mountResource, Resource, resourceSchema, ScopeKind, StoreKind } from "../../lib/manifest/index.ts";
import type { ResourceSpec } from "../../lib/manifest/spec.ts";
import { exclusiveStore, mergeableStore, type RecordStore } from "../../lib/manifest/store.ts";
import { Mux } from "../../lib/router/index.ts";
import { open, tempFile } from "../_support/db.ts";
import { listen } from "../_support/server.ts";

const spec = (store: StoreKind): ResourceSpec => ({
  Name: "memos",
  Route: "/memos",
  Store: store,
  Scope: ScopeKind.UserScoped,
  List: { Columns: [{ Field: "title" }] },
  Form: { Fields: [{ Name: "title", Label: "memos.title", Kind: Kind.Text, Required: true }] },
});
const ada = { owner: "ada@example.com", actor: agentActor("ledger") };

function setup(t: TestContext, kind: StoreKind): { db: DB; events: EventStore; store: RecordStore } {
  const db = open(t, tempFile(t));
  applySchema(db, Schema);
  applySchema(db, resourceSchema(spec(kind)));
  const events = new EventStore(db);
  const store = kind === StoreKind.Exclusive ? exclusiveStore(db, spec(kind), events) : mergeableStore(db, spec(kind), events);
  return { db, events, store };
}

/** Makes every statement `on` (e.g. "INSERT ON main.events") fail, as a full disk would. */
function refuse(db: DB, on: string): () => void {
  db.exec(`CREATE TEMP TRIGGER refuse_write BEFORE ${on} BEGIN SELECT RAISE(ABORT, 'injected: database or disk is full'); END`);
  return () => db.exec("DROP TRIGGER temp.refuse_write");
}

const rows = (db: DB): unknown[] => db.prepare("SELECT id, title FROM memos ORDER BY id").all();
const stored = (db: DB): unknown[] => db.prepare("SELECT stream, seq, type, actor, subject FROM events ORDER BY stream, seq").all();

for (const kind of [StoreKind.Exclusive, StoreKind.Mergeable]) {
  describe(`${kind} store: a change and its event`, () => {
    it("appends created, updated and deleted with the writer's actor and owner to the record's stream", (t) => {
      const { events, store } = setup(t, kind);
      const { id, version } = store.create(ada, { title: "a" });
      const updated = store.update(ada, id, version, { title: "b" });
      assert.equal(updated.kind, "ok");
      assert.equal(store.delete({ owner: ada.owner, actor: humanActor() }, id), true);
      assert.deepEqual(
        events.read(`memos:${id}`).map((e) => [e.Type, e.Actor, e.Subject]),
        [
          ["memos.created", "agent:ledger", "ada@example.com"],
          ["memos.updated", "agent:ledger", "ada@example.com"],
          ["memos.deleted", "human", "ada@example.com"],
        ],
      );
    });

    it("writes nothing when the event cannot be appended", (t) => {
      const { db, store } = setup(t, kind);
      const { id, version } = store.create(ada, { title: "a" });
      const before = { rows: rows(db), events: stored(db) };
      const allow = refuse(db, "INSERT ON main.events");
      assert.throws(() => store.create(ada, { title: "new" }), /injected/);
      assert.throws(() => store.update(ada, id, version, { title: "b" }), /injected/);
      assert.throws(() => store.delete(ada, id), /injected/);
      allow();
      assert.deepEqual({ rows: rows(db), events: stored(db) }, before);
    });

    it("appends no event when the change itself fails", (t) => {
      const { db, store } = setup(t, kind);
      const { id, version } = store.create(ada, { title: "a" });
      const before = { rows: rows(db), events: stored(db) };
      for (const on of ["INSERT ON main.memos", "UPDATE ON main.memos", "DELETE ON main.memos"]) {
        const allow = refuse(db, on);
        assert.throws(() => {
          if (on.startsWith("INSERT")) store.create(ada, { title: "new" });
          else if (on.startsWith("UPDATE")) store.update(ada, id, version, { title: "b" });
          else store.delete(ada, id);
        }, /injected/);
        allow();
      }
      assert.deepEqual({ rows: rows(db), events: stored(db) }, before);
    });
  });
}

describe("mountResource(): the generated form's actor", () => {
  it("records the request's actor: an agent's token posting the form is the agent, not human", async (t) => {
    const db = open(t, tempFile(t));
    applySchema(db, Schema);
    applySchema(db, AgentSchema);
    const events = new EventStore(db);
    const tokens = new AgentTokens(db);
    const { Token } = tokens.mint({ Subject: "ada@example.com", Name: "ledger", Access: "write" });
    const mux = new Mux();
    mountResource(new Resource(spec(StoreKind.Exclusive)), {
      db,
      mux,
      tools: new ToolRegistry(),
      events,
      origin: "http://memos.test",
      // The gate binds the token's grant to the request, as the tools endpoint's Authenticate does.
      requireSession: (next) => (req, res) => (verifyBearer(req, tokens), next(req, res)),
      ctxFrom: () => ({ Render: (_req: IncomingMessage, res) => void res.end("rendered") }),
    });
    const server = await listen(mux.ServeHTTP);
    t.after(() => server.close());
    const res = await fetch(`${server.base}/memos`, {
      method: "POST",
      redirect: "manual",
      headers: { Authorization: `Bearer ${Token}`, Origin: "http://memos.test", "Content-Type": "application/x-www-form-urlencoded" },
      body: "title=lunch",
    });
    assert.equal(res.status, 303);
    const id = (res.headers.get("location") ?? "").split("/").pop() ?? "";
    assert.deepEqual(
      events.read(`memos:${id}`).map((e) => [e.Type, e.Actor, e.Subject]),
      [["memos.created", "agent:ledger", "ada@example.com"]],
    );
  });
});
