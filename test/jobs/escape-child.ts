/*
 * Child process for the escaped-error tests: the node:test runner listens
 * for uncaught exceptions itself, so Node's default behaviour can only be
 * observed in a process of its own. argv[2] names the scenario; the child
 * prints one JSON line of observations to stdout.
 */
import { discardLogger } from "../../lib/http/index.ts";
import { Registry, type Job } from "../../lib/jobs/index.ts";

const reg = new Registry(discardLogger);
const never = (): Promise<void> => new Promise(() => {});
const report = (value: unknown): void => {
  process.stdout.write(JSON.stringify(value) + "\n");
};
const afterTurns = (fn: () => void): void => {
  setTimeout(() => setImmediate(fn), 5);
};
const view = (job: Job | undefined): string => (job === undefined ? "gone" : `${job.Status}:${job.Err}`);

switch (process.argv[2]) {
  case "job": {
    const thrown = reg.Start("o", "timer", () => {
      setTimeout(() => {
        throw new Error("boom in timer");
      }, 0);
      return never();
    });
    const rejected = reg.Start("o", "floating", () => {
      void Promise.reject(new Error("floating rejection"));
      return never();
    });
    const emitted = reg.Start("o", "immediate", async () => {
      await null;
      setImmediate(() => {
        throw new TypeError("boom in immediate");
      });
      return never();
    });
    afterTurns(() => {
      report([thrown, rejected, emitted].map((j) => view(reg.Get(j.ID, "o"))));
      reg.Shutdown();
    });
    break;
  }
  case "unrelated-exception":
    reg.Start("o", "bystander", never);
    report("started");
    setTimeout(() => {
      throw new Error("unrelated crash");
    }, 0);
    break;
  case "unrelated-rejection":
    reg.Start("o", "bystander", never);
    report("started");
    setTimeout(() => {
      void Promise.reject(new Error("unrelated rejection"));
    }, 0);
    break;
  case "finished-exception":
  case "finished-rejection": {
    // The job finishes at once but leaves a callback behind (like a socket it
    // opened), which carries its scope and fails once the job is over: only
    // after the job's status is reported, however the timers and immediates
    // of a loaded machine (or another Node) interleave.
    let reported = false;
    const leaky = reg.Start("o", "leaky", () => {
      const poll = setInterval(() => {
        if (!reported) return;
        clearInterval(poll);
        if (process.argv[2] === "finished-exception") throw new Error("late crash");
        void Promise.reject(new Error("late rejection"));
      }, 1);
    });
    reg.Start("o", "bystander", never);
    setImmediate(() => {
      report(view(reg.Get(leaky.ID, "o")));
      reported = true;
    });
    break;
  }
  case "app-listener": {
    const seen: string[] = [];
    process.on("uncaughtException", (e) => seen.push(e instanceof Error ? e.message : "?"));
    const job = reg.Start("o", "bystander", never);
    setTimeout(() => {
      throw new Error("handled by the app");
    }, 0);
    afterTurns(() => {
      report({ seen, job: view(reg.Get(job.ID, "o")) });
      reg.Shutdown();
    });
    break;
  }
  default:
    throw new Error("escape-child: unknown scenario");
}
