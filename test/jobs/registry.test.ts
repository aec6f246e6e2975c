import { describe, it, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { discardLogger } from "../../lib/http/index.ts";
import { DEFAULT_RETENTION, MAX_FINISHED_PER_OWNER } from "../../lib/jobs/registry.ts";
import { MAX_RUNNING_PER_OWNER, MAX_RUNTIME, Registry, Status, type Job } from "../../lib/jobs/index.ts";
import { FakeClock } from "../_support/clock.ts";
import { settle } from "./support.ts";

const never = (): Promise<void> => new Promise(() => {});

function setup(t: TestContext, options: { retention?: number; maxFinished?: number } = {}): { reg: Registry; clock: FakeClock } {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const clock = new FakeClock(new Date("2025-01-01T00:00:00Z"));
  const reg = new Registry(discardLogger, { clock, ...options });
  t.after(() => reg.Shutdown());
  return { reg, clock };
}

describe("new Registry()", () => {
  it("refuses a missing logger with a typed error", () => {
    // @ts-expect-error: the contract requires a logger
    assert.throws(() => new Registry(), { code: "ERR_JOBS_INVALID_CONFIG", message: /logger is required/ });
    assert.throws(() => new Registry(discardLogger, { maxRuntime: 0 }), { code: "ERR_JOBS_INVALID_CONFIG" });
    for (const maxFinished of [0, 1.5, Number.NaN]) {
      assert.throws(() => new Registry(discardLogger, { maxFinished }), { code: "ERR_JOBS_INVALID_CONFIG", message: /maxFinished/ });
    }
  });
});

describe("Registry.Start()", () => {
  it("returns a Running snapshot and runs the function at once", (t) => {
    const { reg, clock } = setup(t);
    let ran = false;
    const job = reg.Start(
      "a@example.com",
      "export",
      () => {
        ran = true;
      },
      { Location: "/done" },
    );
    assert.ok(ran, "no queued state: the function ran inside Start");
    assert.equal(job.Status, Status.Running);
    assert.equal(job.Status, "running");
    assert.deepEqual(
      { Owner: job.Owner, Name: job.Name, Progress: job.Progress, Err: job.Err, Location: job.Location },
      { Owner: "a@example.com", Name: "export", Progress: "", Err: "", Location: "/done" },
    );
    assert.deepEqual(job.StartedAt, clock.now());
    assert.equal(job.FinishedAt, undefined);
    assert.match(job.ID, /^[A-Za-z0-9_-]{22}$/, "16 random bytes, base64url");
    assert.notEqual(reg.Start("a@example.com", "x", never).ID, job.ID);
  });

  it("moves to Done when the function returns, with FinishedAt from the clock", async (t) => {
    const { reg, clock } = setup(t);
    let seen: AbortSignal | undefined;
    const job = reg.Start("o", "n", async (signal) => {
      seen = signal;
      await null;
    });
    clock.advance(5000);
    await settle();
    const done = reg.Get(job.ID, "o");
    assert.equal(done?.Status, Status.Done);
    assert.equal(done?.Err, "");
    assert.deepEqual(done?.FinishedAt, clock.now());
    assert.equal(seen?.aborted, true, "the signal is released once the job finished");
  });

  const failures = [
    {
      name: "a synchronous throw",
      fn: () => {
        throw new Error("disk full");
      },
      want: "disk full",
    },
    { name: "a rejected promise", fn: () => Promise.reject(new TypeError("bad row")), want: "bad row" },
    { name: "a rejection with a string", fn: () => Promise.reject("quota"), want: "quota" },
    {
      name: "a multi-line message",
      fn: () => {
        throw new Error("line1\nline2\u0000");
      },
      want: "line1 line2",
    },
  ];
  for (const { name, fn, want } of failures) {
    it(`moves to Failed with the error text on ${name}`, async (t) => {
      const { reg } = setup(t);
      const job = reg.Start("o", "n", fn);
      assert.equal(job.Status, Status.Running);
      await settle();
      const failed = reg.Get(job.ID, "o");
      assert.equal(failed?.Status, Status.Failed);
      assert.equal(failed?.Err, want);
      assert.ok(!failed?.Err.includes("    at "), "no stack reaches the owner");
    });
  }

  it("keeps the latest progress text, bounded and without control characters", async (t) => {
    const { reg } = setup(t);
    let report: (text: string) => void = () => {};
    const job = reg.Start("o", "n", (_signal, progress) => {
      report = progress;
      return never();
    });
    report("1/3");
    assert.equal(reg.Get(job.ID, "o")?.Progress, "1/3");
    report("two\r\nlines\u001b[31m");
    assert.equal(reg.Get(job.ID, "o")?.Progress, "two lines [31m");
    report("é".repeat(500));
    assert.equal(reg.Get(job.ID, "o")?.Progress, "é".repeat(200));
  });

  it("refuses the fifth running job of an owner and leaves other owners alone", async (t) => {
    const { reg } = setup(t);
    const first = reg.Start("busy", "j0", never);
    for (let i = 1; i < MAX_RUNNING_PER_OWNER; i++) reg.Start("busy", `j${i}`, never);
    assert.throws(() => reg.Start("busy", "j4", never), { name: "ErrOwnerBusy", code: "ERR_JOBS_OWNER_BUSY" });
    assert.equal(reg.Start("other", "k", never).Status, Status.Running);
    t.mock.timers.tick(MAX_RUNTIME);
    await settle();
    assert.equal(reg.Get(first.ID, "busy")?.Status, Status.Failed);
    assert.equal(reg.Start("busy", "j5", never).Status, Status.Running, "finished jobs no longer count");
  });

  it("fails a job at 15 minutes, aborting its signal at that moment", async (t) => {
    const { reg } = setup(t);
    let signal: AbortSignal | undefined;
    let finish: () => void = () => {};
    const job = reg.Start("o", "slow", (s) => {
      signal = s;
      return new Promise<void>((resolve) => {
        finish = resolve;
      });
    });
    t.mock.timers.tick(MAX_RUNTIME - 1);
    assert.equal(signal?.aborted, false);
    assert.equal(reg.Get(job.ID, "o")?.Status, Status.Running);
    t.mock.timers.tick(1);
    assert.equal(signal?.aborted, true);
    assert.equal(reg.Get(job.ID, "o")?.Status, Status.Failed);
    assert.match(reg.Get(job.ID, "o")?.Err ?? "", /maximum run time/);
    finish();
    await settle();
    assert.equal(reg.Get(job.ID, "o")?.Status, Status.Failed, "a late return does not revive it");
  });

  it("stops counting a job that ignores its aborted signal", async (t) => {
    const { reg } = setup(t);
    for (let i = 0; i < MAX_RUNNING_PER_OWNER; i++) reg.Start("o", "stubborn", never);
    assert.throws(() => reg.Start("o", "x", never), { code: "ERR_JOBS_OWNER_BUSY" });
    t.mock.timers.tick(MAX_RUNTIME);
    for (let i = 0; i < MAX_RUNNING_PER_OWNER; i++) assert.equal(reg.Start("o", "again", never).Status, Status.Running);
  });

  const badLocations = ["https://evil.example/", "//evil.example/", "/\\evil", "relative", "/a\r\nSet-Cookie: x=1"];
  for (const Location of badLocations) {
    it(`refuses Location ${JSON.stringify(Location)}`, (t) => {
      const { reg } = setup(t);
      assert.throws(() => reg.Start("o", "n", never, { Location }), {
        code: "ERR_JOBS_INVALID_ARGUMENT",
        message: /^start job: Location /,
      });
    });
  }
});

describe("Registry.Get()", () => {
  it("answers only the owner; a wrong owner and an unknown id look the same", (t) => {
    const { reg } = setup(t);
    const job = reg.Start("alice", "n", never);
    assert.equal(reg.Get(job.ID, "alice")?.ID, job.ID);
    assert.equal(reg.Get(job.ID, "bob"), undefined);
    assert.equal(reg.Get("unknown", "alice"), undefined);
  });

  it("forgets a finished job after the retention", async (t) => {
    const { reg } = setup(t, { retention: DEFAULT_RETENTION });
    const job = reg.Start("o", "n", async () => {});
    await settle();
    t.mock.timers.tick(DEFAULT_RETENTION - 1);
    assert.equal(reg.Get(job.ID, "o")?.Status, Status.Done);
    t.mock.timers.tick(1);
    assert.equal(reg.Get(job.ID, "o"), undefined);
  });
});

describe("Registry finished-job cap", () => {
  it(`keeps MAX_FINISHED_PER_OWNER (${MAX_FINISHED_PER_OWNER}) finished jobs per owner by default`, async (t) => {
    const { reg } = setup(t);
    const ids: string[] = [];
    for (let i = 0; i <= MAX_FINISHED_PER_OWNER; i++) {
      ids.push(reg.Start("o", `j${i}`, () => Promise.reject(new Error("fails at once"))).ID);
      await settle();
    }
    assert.equal(MAX_FINISHED_PER_OWNER, 20);
    assert.equal(reg.Get(ids[0] ?? "", "o"), undefined, "the earliest finished is forgotten");
    assert.ok(
      ids.slice(1).every((id) => reg.Get(id, "o")?.Status === Status.Failed),
      "the latest 20 stay",
    );
  });

  it("forgets the owner's earliest finished jobs first, never a running one nor another owner's", async (t) => {
    const { reg, clock } = setup(t, { maxFinished: 2 });
    const finishers: (() => void)[] = [];
    const start = (owner: string, name: string): Job =>
      reg.Start(owner, name, () => new Promise<void>((resolve) => finishers.push(resolve)));
    const running = reg.Start("o", "long", never);
    const other = reg.Start("p", "other", async () => {});
    const [a, b, c] = [start("o", "a"), start("o", "b"), start("o", "c")];
    const seen: string[] = [];
    for (const job of [a, b, c]) reg.Subscribe(job.ID, "o", (j) => seen.push(`${job.Name}:${j === undefined ? "gone" : j.Status}`));
    // They finish in the order b, a, c, a minute apart.
    for (const i of [1, 0, 2]) {
      clock.advance(60_000);
      finishers[i]?.();
      await settle();
    }
    assert.equal(reg.Get(b.ID, "o"), undefined, "b finished first: evicted");
    assert.deepEqual(reg.Get(a.ID, "o")?.FinishedAt, new Date(clock.now().getTime() - 60_000));
    assert.deepEqual(reg.Get(c.ID, "o")?.FinishedAt, clock.now());
    assert.equal(reg.Get(running.ID, "o")?.Status, Status.Running, "running jobs are never evicted");
    assert.equal(reg.Get(other.ID, "p")?.Status, Status.Done, "another owner's jobs are untouched");
    assert.deepEqual(seen, ["b:done", "a:done", "c:done", "b:gone"], "the evicted job's subscribers are told");
    t.mock.timers.tick(DEFAULT_RETENTION);
    assert.equal(reg.Get(a.ID, "o"), undefined, "retention still applies");
  });
});

describe("Registry.Subscribe()", () => {
  it("reports every change, then undefined when the job is forgotten", async (t) => {
    const { reg } = setup(t, { retention: 1000 });
    let report: (text: string) => void = () => {};
    let finish: () => void = () => {};
    const job = reg.Start("o", "n", (_s, progress) => {
      report = progress;
      return new Promise<void>((resolve) => {
        finish = resolve;
      });
    });
    const seen: (Job | undefined)[] = [];
    assert.equal(
      reg.Subscribe(job.ID, "intruder", (j) => seen.push(j)),
      undefined,
    );
    const unsubscribe = reg.Subscribe(job.ID, "o", (j) => seen.push(j));
    assert.equal(typeof unsubscribe, "function");
    report("half");
    finish();
    await settle();
    t.mock.timers.tick(1000);
    assert.deepEqual(
      seen.map((j) => (j === undefined ? "gone" : `${j.Status}:${j.Progress}`)),
      ["running:half", "done:half", "gone"],
    );
  });
});

describe("Registry.Shutdown()", () => {
  it("aborts running signals, forgets every job and refuses new ones", (t) => {
    const { reg } = setup(t);
    let signal: AbortSignal | undefined;
    const job = reg.Start("o", "n", (s) => {
      signal = s;
      return never();
    });
    const seen: (Job | undefined)[] = [];
    reg.Subscribe(job.ID, "o", (j) => seen.push(j));
    reg.Shutdown();
    assert.equal(signal?.aborted, true);
    assert.deepEqual(seen, [undefined]);
    assert.equal(reg.Get(job.ID, "o"), undefined);
    assert.throws(() => reg.Start("o", "n", never), { code: "ERR_JOBS_SHUT_DOWN" });
    reg.Shutdown();
  });
});
