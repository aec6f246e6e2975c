/*
 * The one event-stream endpoint (`eventStreams`, lib/internal/event-stream.ts)
 * on a real server: HEAD, the per-person count and its 429, and letting go
 * of what a stream follows when it closes. The jobs' and the live pages'
 * streams go through it (test/jobs/events.test.ts, test/manifest/live.test.ts).
 */
import assert from "node:assert/strict";
import { request, type IncomingMessage } from "node:http";
import { describe, it } from "node:test";
import { endStreamsOf, eventStreams, STREAM_LIMITS } from "../../lib/internal/index.ts";
import { applySchema, OpenDB } from "../../lib/db/index.ts";
import { Sessions, Schema as SessionSchema } from "../../lib/session/index.ts";
import { startServer } from "../_support/server.ts";

/** Opens `path` with `method`; resolves with the response once its head arrives. */
function open(base: string, method: string, person: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    request(`${base}/`, { method, headers: { "x-person": person }, agent: false }, resolve)
      .on("error", (e) => (e.message === "socket hang up" ? undefined : reject(e)))
      .end();
  });
}

describe("eventStreams", () => {
  it("keeps SPEC.md §6.1's limits: 15 s ping, 10 s write deadline, 5-minute life, retry 3000, 10 per person", () => {
    assert.deepEqual({ ...STREAM_LIMITS }, { heartbeat: 15_000, writeTimeout: 10_000, lifetime: 300_000, retry: 3_000, perPerson: 10 });
  });

  it("answers HEAD with the stream's headers and no body, holding no place; past `perPerson` a GET is 429 with Retry-After in whole seconds", async (t) => {
    // 1,500 ms of retry is 2 whole seconds of Retry-After (RFC 9110 §10.2.3), rounded up.
    const streams = eventStreams({ heartbeat: 60_000, writeTimeout: 60_000, lifetime: 60_000, retry: 1_500, perPerson: 1 });
    let following = 0;
    let unfollowed = 0;
    const { base } = await startServer(t, (req, res) =>
      streams(req, res, String(req.headers["x-person"]), (writer) => {
        following++;
        writer.update("event: hello\ndata: {}\n\n");
        return () => unfollowed++;
      }),
    );
    for (let i = 0; i < 2; i++) {
      const head = await open(base, "HEAD", "ada");
      assert.equal(head.statusCode, 200);
      assert.equal(head.headers["content-type"], "text/event-stream; charset=utf-8");
      head.resume();
    }
    assert.equal(following, 0, "a HEAD follows nothing");
    const first = await open(base, "GET", "ada");
    assert.equal(first.statusCode, 200, "two HEADs held no place");
    const refused = await open(base, "GET", "ada");
    assert.deepEqual([refused.statusCode, refused.headers["retry-after"], refused.headers["cache-control"]], [429, "2", "no-store"]);
    refused.resume();
    const bob = await open(base, "GET", "bob");
    assert.equal(bob.statusCode, 200, "another person is counted apart");
    assert.equal(following, 2);

    const closed = new Promise<void>((done) => first.once("close", done));
    first.destroy();
    await closed;
    // The server sees the close on its own turn: ask until the place is free.
    let again = await open(base, "GET", "ada");
    while (again.statusCode !== 200) {
      again.resume();
      again = await open(base, "GET", "ada");
    }
    assert.equal(unfollowed, 1, "the closed stream let go of what it followed, once");
    again.destroy();
    bob.destroy();
  });

  it("ends a person's open streams when their sessions are revoked (Sessions.RevokeAll), another person's stay; everyone's with endStreamsOf()", async (t) => {
    const streams = eventStreams({ heartbeat: 3_600_000, writeTimeout: 60_000, lifetime: 3_600_000, retry: 1_000, perPerson: 5 });
    const { base } = await startServer(t, (req, res) =>
      streams(req, res, String(req.headers["x-person"]), (writer) => {
        writer.update("event: hello\ndata: {}\n\n");
        return undefined;
      }),
    );
    const ended = (res: IncomingMessage): Promise<void> => new Promise((done) => res.resume().once("end", done));
    const [ada, bob] = [await open(base, "GET", "ada@example.com"), await open(base, "GET", "bob@example.com")];
    let bobEnded = false;
    void ended(bob).then(() => (bobEnded = true));
    const db = OpenDB(":memory:");
    t.after(() => db.close());
    applySchema(db, SessionSchema);
    new Sessions(db, { Origin: "http://localhost" }).RevokeAll("ada@example.com");
    await ended(ada);
    assert.equal(bobEnded, false, "another person's stream stays open");
    endStreamsOf();
    await ended(bob);
  });
});
