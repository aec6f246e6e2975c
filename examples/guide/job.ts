/*
 * Step 4 of docs/guide.md: a background job. `POST /jobs` starts one for
 * the signed-in person (it counts to ten, reporting "n/10" so the status
 * page draws a progress bar) and answers 303 to its status page, or, with 4
 * running already, the starter's page saying so (429); lib/jobs
 * serves the page, its fragment and its event stream, rendered by the
 * starter's job pages.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { Assets } from "latch/assets";
import { seeOther, type HandlerFunc } from "latch/http";
import { isOwnerBusy, newHandlers, type JobFunc, type Registry } from "latch/jobs";
import { PathValue, type Group } from "latch/router";
import { From } from "latch/signin";
import { jobPages, jobsBusyPage } from "../starter/pages/jobs.ts";

/** What the job routes need: the registry and a group behind RequireSession. */
export interface JobDeps {
  jobs: Registry;
  signedIn: Group;
  assets: Assets;
  /** Milliseconds per step. */
  stepMs: number;
}

/** Counts to ten, one step every `stepMs`; stops when the signal aborts (shutdown, 15-minute cap). */
export function countToTen(stepMs: number): JobFunc {
  return async (signal, progress) => {
    for (let i = 1; i <= 10; i++) {
      await sleep(stepMs, undefined, { signal });
      progress(`${i}/10`);
    }
  };
}

/** Mounts `POST /jobs` and the status routes; returns the status page handler. */
export function mountJobs({ jobs, signedIn, assets, stepMs }: JobDeps): HandlerFunc {
  const pages = newHandlers({ Jobs: jobs, ...jobPages(assets), Owner: (req) => From(req)?.Subject, ID: (req) => PathValue(req, "id") });
  signedIn.Handle("POST /jobs", (req, res) => {
    try {
      const job = jobs.Start(From(req)?.Subject ?? "", "count", countToTen(stepMs));
      seeOther(res, `/jobs/${job.ID}`);
    } catch (err) {
      // SPEC §7: the application words ErrOwnerBusy (4 jobs running already).
      if (!isOwnerBusy(err)) throw err;
      jobsBusyPage(req, res, assets);
    }
  });
  signedIn.Handle("GET /jobs/{id}", pages.StatusPage);
  signedIn.Handle("GET /jobs/{id}/fragment", pages.Fragment);
  signedIn.Handle("GET /jobs/{id}/events", pages.Events);
  return pages.StatusPage;
}
