/*
 * The jobs limits of SPEC §8 with every default: 4 running jobs per owner
 * and 15 minutes of run time (a `Registry` given no options, SPEC §3.1), and
 * the 15-second `: ping` heartbeat of `GET /jobs/{id}/events` (handlers with
 * no `HeartbeatInterval`, SPEC §6.1), read off the wire. The values are
 * written out here, not read from the exported constants, so changing a
 * default fails these tests.
 */
import { describe, it, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { discardLogger } from "../../lib/http/index.ts";
import { Registry, Status, isOwnerBusy, type JobFunc } from "../../lib/jobs/index.ts";
import { fetchAs, openStream, startServer } from "./server.ts";
import { settle } from "./support.ts";

const LIMIT = 4;
const FIFTEEN_MINUTES = 15 * 60 * 1000;
const FIFTEEN_SECONDS = 15 * 1000;

const never: JobFunc = () => new Promise<void>(() => {});

/** A registry with every default (no options at all), shut down after the test. */
function defaultRegistry(t: TestContext): Registry {
  const reg = new Registry(discardLogger);
  t.after(() => reg.Shutdown());
  return reg;
}

/** Starts a job that runs until `finish` is called. */
function startHeld(reg: Registry, owner: string): { id: string; finish: () => void } {
  let finish: () => void = () => {};
  const id = reg.Start(owner, "held", () => new Promise<void>((resolve) => (finish = resolve))).ID;
  return { id, finish: () => finish() };
}

describe("Registry.Start() with default options: 4 running jobs per owner (SPEC §3.1, §8)", () => {
  it("runs 4 jobs per owner and refuses the 5th with ErrOwnerBusy", (t) => {
    const reg = defaultRegistry(t);
    for (let i = 0; i < LIMIT; i++) assert.equal(reg.Start("ann", `j${i}`, never).Status, Status.Running, `job ${i + 1}`);
    assert.throws(
      () => reg.Start("ann", "fifth", never),
      (e: unknown) => {
        assert.ok(isOwnerBusy(e));
        assert.equal(e.code, "ERR_JOBS_OWNER_BUSY");
        assert.equal(e.owner, "ann");
        assert.match(e.message, /already has 4 running jobs/);
        return true;
      },
    );
  });

  it("leaves another owner unaffected", (t) => {
    const reg = defaultRegistry(t);
    for (let i = 0; i < LIMIT; i++) reg.Start("ann", `j${i}`, never);
    for (let i = 0; i < LIMIT; i++) assert.equal(reg.Start("bob", `k${i}`, never).Status, Status.Running, `bob's job ${i + 1}`);
    assert.throws(() => reg.Start("bob", "fifth", never), isOwnerBusy);
    assert.throws(() => reg.Start("ann", "fifth", never), isOwnerBusy);
  });

  it("starts a new job once one of the 4 finishes, and refuses again at 4", async (t) => {
    const reg = defaultRegistry(t);
    const held = Array.from({ length: LIMIT }, () => startHeld(reg, "ann"));
    assert.throws(() => reg.Start("ann", "waiting", never), isOwnerBusy);
    held[0]?.finish();
    await settle();
    assert.equal(reg.Get(held[0]?.id ?? "", "ann")?.Status, Status.Done);
    assert.equal(reg.Start("ann", "next", never).Status, Status.Running);
    assert.throws(() => reg.Start("ann", "one more", never), isOwnerBusy);
  });
});

describe("Registry.Start() with default options: 15 minutes of run time (SPEC §3.1, §8)", () => {
  function setup(t: TestContext): Registry {
    t.mock.timers.enable({ apis: ["setTimeout", "Date"], now: Date.parse("2030-01-01T00:00:00Z") });
    return defaultRegistry(t);
  }

  it("keeps a job Running until just before 15 minutes and fails it at 15 minutes, aborting its signal then", (t) => {
    const reg = setup(t);
    let signal: AbortSignal | undefined;
    const job = reg.Start("ann", "slow", (s) => {
      signal = s;
      return new Promise<void>(() => {});
    });
    t.mock.timers.tick(FIFTEEN_MINUTES - 1);
    assert.equal(reg.Get(job.ID, "ann")?.Status, Status.Running);
    assert.equal(signal?.aborted, false);
    t.mock.timers.tick(1);
    const failed = reg.Get(job.ID, "ann");
    assert.equal(failed?.Status, Status.Failed);
    assert.equal(failed?.Err, "run job: exceeded the maximum run time (15 min)");
    assert.equal(signal?.aborted, true, "the signal aborts at the same moment");
    assert.ok(signal?.reason instanceof Error && "code" in signal.reason);
    assert.equal(signal.reason.code, "ERR_JOBS_TIMEOUT");
    assert.equal((failed?.FinishedAt?.getTime() ?? 0) - job.StartedAt.getTime(), FIFTEEN_MINUTES);
  });

  it("stops counting a timed-out job against its owner at 15 minutes, even if its function runs on", (t) => {
    const reg = setup(t);
    for (let i = 0; i < LIMIT; i++) reg.Start("ann", `stubborn ${i}`, never);
    t.mock.timers.tick(FIFTEEN_MINUTES - 1);
    assert.throws(() => reg.Start("ann", "early", never), isOwnerBusy, "still 4 running just before 15 minutes");
    t.mock.timers.tick(1);
    for (let i = 0; i < LIMIT; i++) assert.equal(reg.Start("ann", `again ${i}`, never).Status, Status.Running);
  });
});

describe("NewHandlers().Events with the default config: `: ping` every 15 s (SPEC §6.1, §8)", () => {
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

describe("newHandlers().Events with the default config: 10 open streams per owner", () => {
  it("refuses an 11th stream of one owner with 429 while other owners are served, and counts a closed stream out", async (t) => {
    const srv = await startServer(t);
    const jobs = [srv.jobs.Start("alice", "a", never).ID, srv.jobs.Start("alice", "b", never).ID];
    const open = [];
    for (let i = 0; i < 10; i++) {
      const s = await openStream(`${srv.base}/jobs/${jobs[i % 2]}/events`, "alice");
      assert.equal(s.res.statusCode, 200, `stream ${i + 1}`);
      open.push(s);
    }
    const refused = await fetchAs(`${srv.base}/jobs/${jobs[0]}/events`, "alice");
    assert.deepEqual(
      [refused.status, refused.body, refused.headers["content-type"], refused.headers["cache-control"], refused.headers["retry-after"]],
      // RFC 9110 §10.2.3: Retry-After in whole seconds, the stream's own `retry: 3000`.
      [429, "Too many open event streams.\n", "text/plain; charset=utf-8", "no-store", "3"],
    );
    const bobJob = srv.jobs.Start("bob", "c", never).ID;
    const bob = await openStream(`${srv.base}/jobs/${bobJob}/events`, "bob");
    assert.equal(bob.res.statusCode, 200);
    // The earlier streams are untouched by the refusal.
    for (const s of open) assert.equal(s.res.destroyed, false);
    // One of alice's streams closes: once the server has seen it close, she may open one more.
    const first = srv.responses.find((r) => r.req.url === `/jobs/${jobs[0]}/events`);
    const serverSaw = new Promise<void>((resolve) => first?.once("close", () => resolve()));
    open[0]?.res.destroy();
    await serverSaw;
    await settle();
    const again = await openStream(`${srv.base}/jobs/${jobs[0]}/events`, "alice");
    assert.equal(again.res.statusCode, 200);
    for (const s of [...open, bob, again]) s.res.destroy();
  });
});
