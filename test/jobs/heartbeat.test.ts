/*
 * The 15-second `: ping` heartbeat of `GET /jobs/{id}/events` with the
 * default handlers config (SPEC §6.1, §8), read off the wire. The interval
 * is written out here, not read from HEARTBEAT_INTERVAL, so changing the
 * default fails this test.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { openStream, startServer } from "./server.ts";

const FIFTEEN_SECONDS = 15 * 1000;

describe("GET /jobs/{id}/events heartbeat with the default config", () => {
  it("writes `: ping` at 15 s and not before, then every 15 s", async (t) => {
    t.mock.timers.enable({ apis: ["setTimeout", "setInterval"] });
    const srv = await startServer(t);
    let report: (text: string) => void = () => {};
    const id = srv.jobs.Start("alice", "n", (_signal, progress) => {
      report = progress;
      return new Promise<void>(() => {});
    }).ID;
    const s = await openStream(`${srv.base}/jobs/${id}/events`, "alice");
    let wire = "";
    s.res.on("data", (chunk: Buffer) => (wire += chunk.toString("utf8")));
    await s.until((p) => p.events.length === 1);

    // Each check sends a marker event after moving the clock: it goes out on
    // the same socket after anything the server wrote before it, so once it
    // arrives the comments seen so far are all there are (no waiting on a ping
    // that may never come).
    let markers = 1;
    const commentsAt = async (ms: number): Promise<string[]> => {
      t.mock.timers.tick(ms);
      report(`marker ${++markers}`);
      await s.until((p) => p.events.length === markers);
      return [...s.parser.comments];
    };
    assert.deepEqual(await commentsAt(FIFTEEN_SECONDS - 1), [], "no ping before 15 s");
    assert.ok(!wire.includes(": ping"), "no ping bytes before 15 s");
    assert.deepEqual(await commentsAt(1), ["ping"], "a ping at 15 s");
    assert.match(wire, /\n\n: ping\n\nevent: update\n/, "the ping is a comment line and a blank line, between events");
    assert.deepEqual(await commentsAt(FIFTEEN_SECONDS - 1), ["ping"], "no second ping before 30 s");
    assert.deepEqual(await commentsAt(1), ["ping", "ping"], "the second ping at 30 s");
  });
});
