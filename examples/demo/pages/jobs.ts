/*
 * The background-job demo: `POST /jobs` with `kind=ok` (reports progress
 * over a few seconds) or `kind=fail` (fails, to show `Err`), answering 303
 * to `/jobs/{id}` (the same start as the `start_job` tool, see agents.ts).
 * The status page and fragment are the starter's (examples/starter/pages/jobs.ts).
 */
import { seeOther, html, readForm, type HandlerFunc } from "../../../lib/http/index.ts";
import { callerFrom, type ToolInvoker } from "../../../lib/agent/index.ts";
import { T } from "../../../lib/i18n/index.ts";
import type { Job, Registry } from "../../../lib/jobs/index.ts";
import type { Assets } from "../../../lib/assets/index.ts";
import { render } from "./layout.ts";

const STEPS = 10;

function demoJob(kind: "ok" | "fail", stepMs: number) {
  return async (signal: AbortSignal, progress: (text: string) => void): Promise<void> => {
    // A fraction from the start, so the page shows its bar at once (lib/jobs/README.md#progress).
    progress(`0/${STEPS}`);
    for (let i = 1; i <= STEPS; i++) {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, stepMs);
        signal.addEventListener(
          "abort",
          () => {
            clearTimeout(timer);
            reject(new Error("the job was stopped"));
          },
          { once: true },
        );
      });
      progress(`${i}/${STEPS}`);
      if (kind === "fail" && i === STEPS / 2) throw new Error("the demo job failed on purpose halfway through");
    }
  };
}

/** Starts the demo job of `kind` for `owner`; throws `ErrOwnerBusy` at the limit. */
export function startDemoJob(jobs: Registry, owner: string, kind: "ok" | "fail", stepMs: number): Job {
  return jobs.Start(owner, kind === "ok" ? "demo" : "demo-fail", demoJob(kind, stepMs), {
    Location: kind === "ok" ? "/account?job=done" : "",
  });
}

/**
 * `POST /jobs`, the human half of the `start_job` tool: the person's form
 * submission is their confirmation, and the call goes through the same
 * invoker (and audit stream) as an agent's.
 */
export function startJob(invoker: ToolInvoker, assets: Assets): HandlerFunc {
  return async (req, res) => {
    const form = await readForm(req);
    const kind = form.get("kind") === "fail" ? "fail" : "ok";
    const caller = callerFrom(req);
    if (caller === undefined) throw new Error("POST /jobs without RequireSession");
    const outcome = await invoker.call(caller, "start_job", { kind });
    if (outcome.kind === "ok") return seeOther(res, (outcome.result as { location: string }).location);
    // The session ended while the call was under way (a change of address, a deletion): answered as an expired session.
    if (outcome.kind === "unauthorized") return seeOther(res, "/signin");
    if (outcome.kind === "refused" && outcome.status === 429) {
      return render(
        req,
        res,
        assets,
        { title: T(req, "starter.jobs.title"), body: html`<p class="card notice bad" role="alert">${T(req, "jobs.busy")}</p>` },
        429,
      );
    }
    throw new Error(`demo: start_job answered ${outcome.kind}`);
  };
}
