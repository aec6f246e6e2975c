/*
 * Live pages over HTTP (issue 25 item 5): `GET <Route>/events` tells a
 * person of the changes to their own records, whichever path made them (an
 * agent's tool call after approval, a form), and nobody else's; an unscoped
 * resource tells everyone signed in. A person holds at most 10 streams
 * across the application (the 11th is 429, as for jobs); a reconnecting
 * stream resumes from `Last-Event-ID`, or is told to `reset`. The pages
 * carry the stream and the polling interval for lib/client/live.js.
 */
import assert from "node:assert/strict";
import { get, type IncomingMessage } from "node:http";
import { describe, it, type TestContext } from "node:test";
import { humanActor, ToolRegistry } from "../../lib/agent/index.ts";
import * as events from "../../lib/events/index.ts";
import { EventStore } from "../../lib/events/index.ts";
import { ctxFrom, type RenderFunc } from "../../lib/index.ts";
import { Kind, Resource, ScopeKind, StoreKind, isResourceView, mountResource, resourceSchema } from "../../lib/manifest/index.ts";
import type { RecordStore } from "../../lib/manifest/store.ts";
import { SUBJECT, startTransportsApp, type TransportsApp } from "../_support/agent-transports.ts";
import type { CookieJar } from "../_support/http-client.ts";
import { startSigninApp } from "../_support/signin-app.ts";
import { SSEParser, type SSEEvent } from "../_support/sse.ts";

const memos = (scope: ScopeKind, store: StoreKind = StoreKind.Exclusive): Resource =>
  new Resource({
    Name: "memos",
    Route: "/memos",
    Store: store,
    Scope: scope,
    List: { Columns: [{ Field: "title" }] },
    Form: { Fields: [{ Name: "title", Label: "memos.title", Kind: Kind.Text, Required: true }] },
  });

/** One open event stream, read as a browser would (the WHATWG parser of test/_support/sse.ts). */
interface Stream {
  res: IncomingMessage;
  body: string;
  /** Resolves with the `n`-th (1-based) dispatched event. */
  event(n: number): Promise<SSEEvent>;
  close(): void;
}

function open(base: string, jar: CookieJar, headers: Record<string, string> = {}): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const cookie = jar.header();
    const request = get(
      `${base}/memos/events`,
      { headers: { Accept: "text/event-stream", ...(cookie !== undefined && { Cookie: cookie }), ...headers }, agent: false },
      (res) => {
        const parser = new SSEParser();
        const waiters = new Set<() => void>();
        const stream: Stream = {
          res,
          body: "",
          event: (n) =>
            new Promise((ok) => {
              const check = (): void => {
                const e = parser.events[n - 1];
                if (e === undefined) return;
                waiters.delete(check);
                ok(e);
              };
              waiters.add(check);
              check();
            }),
          close: () => request.destroy(),
        };
        res.on("data", (chunk: Buffer) => {
          stream.body += chunk.toString();
          parser.feed(chunk);
          for (const w of [...waiters]) w();
        });
        resolve(stream);
      },
    );
    request.on("error", (e) => (e.message === "socket hang up" ? undefined : reject(e)));
  });
}

const data = (e: SSEEvent): Record<string, unknown> => JSON.parse(e.data) as Record<string, unknown>;
const idOf = (url: string): string => url.split("/").pop() ?? "";

/** Creates a memo as `SUBJECT`'s agent: held for approval, approved, run. Returns its id. */
async function agentCreates(app: TransportsApp, token: string, title: string): Promise<string> {
  const held = await app.tools(token, "memos_create", { title });
  assert.equal(held.status, 202, held.body);
  app.approve(idOf((JSON.parse(held.body) as { approval_url: string }).approval_url));
  const ran = await app.tools(token, "memos_create", { title });
  assert.equal(ran.status, 200, ran.body);
  return (JSON.parse(ran.body) as { result: { id: string } }).result.id;
}

/** Writes as a person's own page does, through the mounted store (the transports app renders no pages). */
function store(app: TransportsApp): RecordStore {
  if (app.mounted === undefined) throw new Error("no resource mounted");
  return app.mounted.Store;
}
const as = (owner: string) => ({ owner, actor: humanActor() });

function closeAll(t: TestContext, streams: Stream[]): void {
  t.after(() => streams.forEach((s) => s.close()));
}

describe("GET <Route>/events", { timeout: 30_000 }, () => {
  it("tells a person of their agent's approved write, and nobody else", async (t) => {
    const app = await startTransportsApp(t, { mail: "smtp", resource: memos(ScopeKind.UserScoped) });
    const ada = await app.signIn(SUBJECT);
    const bob = await app.signIn("bob@example.com");
    const adas = await open(app.base, ada);
    const bobs = await open(app.base, bob);
    closeAll(t, [adas, bobs]);
    assert.equal(adas.res.statusCode, 200);
    assert.match(String(adas.res.headers["content-type"]), /^text\/event-stream/);

    const id = await agentCreates(app, app.mint("write", "claude"), "Agenda");
    const told = await adas.event(1);
    assert.equal(told.type, "change");
    assert.deepEqual({ ...data(told), version: undefined }, { id, change: "created", version: undefined });

    // Bob's first event is his own write: Ada's never reached him.
    const his = store(app).create(as("bob@example.com"), { title: "Bob's" }).id;
    assert.equal(data(await bobs.event(1))["id"], his);
    assert.doesNotMatch(bobs.body, new RegExp(id));
  });

  it("tells an update and a delete, with the record's version", async (t) => {
    const app = await startTransportsApp(t, { mail: "smtp", resource: memos(ScopeKind.UserScoped, StoreKind.Mergeable) });
    const stream = await open(app.base, await app.signIn(SUBJECT));
    closeAll(t, [stream]);
    const { id } = store(app).create(as(SUBJECT), { title: "One" });
    assert.deepEqual(data(await stream.event(1)), { id, change: "created", version: 1 });
    assert.equal(store(app).update(as(SUBJECT), id, 1, { title: "Two" }).kind, "ok");
    assert.deepEqual(data(await stream.event(2)), { id, change: "updated", version: 2 });
    assert.equal(store(app).delete(as(SUBJECT), id), true);
    assert.deepEqual(data(await stream.event(3)), { id, change: "deleted", version: 0 });
  });

  it("tells everyone signed in of an unscoped resource's changes", async (t) => {
    const app = await startTransportsApp(t, { mail: "smtp", resource: memos(ScopeKind.Unscoped) });
    const bobs = await open(app.base, await app.signIn("bob@example.com"));
    closeAll(t, [bobs]);
    const { id } = store(app).create(as(SUBJECT), { title: "Shared" });
    assert.equal(data(await bobs.event(1))["id"], id);
  });

  it("opens no stream without a session", async (t) => {
    const app = await startTransportsApp(t, { mail: "smtp", resource: memos(ScopeKind.UserScoped) });
    const res = await app.request("GET", "/memos/events", { headers: { Accept: "text/event-stream" } });
    assert.notEqual(res.status, 200);
    assert.doesNotMatch(String(res.headers["content-type"]), /event-stream/);
  });

  it("holds 10 streams per person; the 11th is 429 until one closes", async (t) => {
    const app = await startTransportsApp(t, { mail: "smtp", resource: memos(ScopeKind.UserScoped) });
    const ada = await app.signIn(SUBJECT);
    const streams: Stream[] = [];
    closeAll(t, streams);
    for (let i = 0; i < 10; i++) streams.push(await open(app.base, ada));
    assert.deepEqual(
      streams.map((s) => s.res.statusCode),
      Array(10).fill(200),
    );
    const refused = await app.request("GET", "/memos/events", { jar: ada });
    assert.equal(refused.status, 429);
    assert.equal(refused.body.trim(), "Too many open event streams.");
    assert.equal(refused.headers["retry-after"], "3", "RFC 9110 §10.2.3: whole seconds, the stream's own retry: 3000");
    // Another person is not counted against Ada.
    const bobs = await open(app.base, await app.signIn("bob@example.com"));
    streams.push(bobs);
    assert.equal(bobs.res.statusCode, 200);

    const closed = streams.shift();
    await new Promise<void>((done) => {
      closed?.res.on("close", done);
      closed?.close();
    });
    // The server sees the close on its own turn: ask until the slot is free.
    let again: Stream | undefined;
    while (again === undefined) {
      const s = await open(app.base, ada);
      streams.push(s);
      if (s.res.statusCode === 200) again = s;
      else s.res.resume();
    }
    assert.equal(again.res.statusCode, 200);
  });

  it("resumes from Last-Event-ID, and tells a stream it cannot resume to reset", async (t) => {
    const app = await startTransportsApp(t, { mail: "smtp", resource: memos(ScopeKind.UserScoped) });
    const ada = await app.signIn(SUBJECT);
    const first = await open(app.base, ada);
    const one = store(app).create(as(SUBJECT), { title: "One" }).id;
    const seen = await first.event(1);
    first.close();
    const two = store(app).create(as(SUBJECT), { title: "Two" }).id;
    const resumed = await open(app.base, ada, { "Last-Event-ID": seen.lastEventId });
    const stale = await open(app.base, ada, { "Last-Event-ID": "another-boot.1" });
    closeAll(t, [resumed, stale]);
    assert.notEqual(one, two);
    assert.equal(data(await resumed.event(1))["id"], two);
    assert.equal((await stale.event(1)).type, "reset");
  });

  it("replays at most the last 256 changes", async (t) => {
    const app = await startTransportsApp(t, { mail: "smtp", resource: memos(ScopeKind.UserScoped) });
    const ada = await app.signIn(SUBJECT);
    const first = await open(app.base, ada);
    store(app).create(as(SUBJECT), { title: "0" });
    const seen = (await first.event(1)).lastEventId;
    first.close();
    for (let i = 1; i <= 256; i++) store(app).create(as(SUBJECT), { title: String(i) });
    const full = await open(app.base, ada, { "Last-Event-ID": seen });
    closeAll(t, [full]);
    assert.equal((await full.event(256)).type, "change", "the 256 missed changes, all still kept");
    assert.equal((await full.event(1)).type, "change");
    store(app).create(as(SUBJECT), { title: "257" });
    const beyond = await open(app.base, ada, { "Last-Event-ID": seen });
    closeAll(t, [beyond]);
    assert.equal((await beyond.event(1)).type, "reset", "one more, and the first missed change is forgotten");
  });
});

describe("live pages' markup", () => {
  const render: RenderFunc = (_req, res, _view, view) => {
    if (!isResourceView(view)) throw new Error("test render: not a resource view");
    res.statusCode = view.Status;
    res.end(`<!doctype html><title>${view.Title}</title><meta name="scripts" content="${view.Scripts.join(" ")}">${view.Body.toString()}`);
  };

  it("names the stream, the polling interval (5 s) and live.js on the list and record pages", async (t) => {
    const resource = memos(ScopeKind.UserScoped, StoreKind.Mergeable);
    const app = await startSigninApp(t, {
      render,
      origin: "http://live.test",
      schema: [...events.Schema, ...resourceSchema(resource)],
      extend: (mux, auth, db) => {
        mountResource(resource, {
          db,
          mux,
          tools: new ToolRegistry(),
          events: new EventStore(db),
          origin: "http://live.test",
          requireSession: auth.RequireSession,
          ctxFrom,
        });
      },
    });
    const jar = await app.signIn(SUBJECT);
    const created = await app.request("POST", "/memos", { jar, form: { title: "One" } });
    const record = await app.request("GET", String(created.headers["location"]), { jar });
    const list = await app.request("GET", "/memos", { jar });
    const blank = await app.request("GET", "/memos/new", { jar });
    for (const page of [record, list]) {
      assert.match(page.body, /data-live="\/memos\/events" data-live-every="5"/);
      assert.match(page.body, /<meta name="scripts" content="live.js">/);
    }
    assert.match(list.body, /data-live-list/);
    assert.match(record.body, /data-live-notice="changed" hidden/);
    assert.match(record.body, /data-live-merge/, "a Mergeable record offers the merge");
    assert.match(blank.body, /<meta name="scripts" content="">/);
  });
});
