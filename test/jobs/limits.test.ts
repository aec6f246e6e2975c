/*
 * The registry's contract limits with its defaults (SPEC §3.1, §8): 4
 * running jobs per owner and 15 minutes of run time. The values are written
 * out here, not read from the exported constants, so changing a default
 * fails these tests.
 */
import { describe, it, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { discardLogger } from "../../lib/http/index.ts";
import { Registry, Status, isOwnerBusy, type JobFunc } from "../../lib/jobs/index.ts";
import { settle } from "./support.ts";

const LIMIT = 4;
const FIFTEEN_MINUTES = 15 * 60 * 1000;

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

describe("Registry default owner limit (SPEC §3.1, §8)", () => {
  it("runs 4 jobs per owner and refuses the 5th with ErrOwnerBusy", (t) => {
    const reg = defaultRegistry(t);
    for (let i = 0; i < LIMIT; i++) assert.equal(reg.Start("ann", `j${i}`, never).Status, Status.Running, `job ${i + 1}`);
    assert.throws(() => reg.Start("ann", "fifth", never), (e: unknown) => {
      assert.ok(isOwnerBusy(e));
      assert.equal(e.code, "ERR_JOBS_OWNER_BUSY");
      assert.equal(e.owner, "ann");
      assert.match(e.message, /already has 4 running jobs/);
      return true;
    });
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

describe("Registry default maximum run time (SPEC §3.1, §8)", () => {
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
