/*
 * "Clear done tasks": a job that changes records (lib/manifest README,
 * "Records from a job"). A team's task list carries the button; `POST
 * /teams/{team}/tasks/clear-done` starts the job for the signed-in person
 * and answers 303 to its status page, which lands back on the list once it
 * is done. The job deletes the team's done tasks through
 * `MountedResource.For`, as that person: each deletion's event is theirs
 * (actor "human"), and a viewer's job fails with the reason the form
 * gives them (their role reads the list, it does not change it), nothing
 * deleted. A fifth running job is ErrOwnerBusy (429), which the demo's
 * error page words.
 */
import type { IncomingMessage } from "node:http";
import { html, seeOther, type SafeHTML } from "../../lib/http/index.ts";
import { T } from "../../lib/i18n/index.ts";
import type { JobFunc, Registry } from "../../lib/jobs/index.ts";
import type { MountedResource } from "../../lib/manifest/index.ts";
import { PathValue, type Group } from "../../lib/router/index.ts";
import { From } from "../../lib/signin/index.ts";

/** Deletes `team`'s done tasks as `person`, one list page (20) at a time, reporting how many went; stops when the signal aborts. */
export function clearDoneTasks(tasks: MountedResource, person: string, team: string): JobFunc {
  return async (signal, progress) => {
    const records = tasks.For(person, { Team: team });
    let cleared = 0;
    for (;;) {
      const page = records.list({ filters: [{ field: "done", equals: 1 }] }).records;
      // Until a page deletes nothing: none are left, or the signal aborted.
      const gone = page.filter((record) => !signal.aborted && records.delete(record.id)).length;
      cleared += gone;
      progress(`${cleared}`);
      if (gone === 0) return;
    }
  };
}

/** The button a team's task list shows (the demo's Render adds it under the list). */
export function clearDoneForm(req: IncomingMessage): SafeHTML {
  const team = PathValue(req, "team") ?? "";
  return html`<form method="post" action="/teams/${team}/tasks/clear-done" data-clear-done>
  <button class="secondary" type="submit">${T(req, "demo.jobrec.clear_done")}</button>
</form>`;
}

/** Mounts `POST /teams/{team}/tasks/clear-done` on `signedIn` (behind RequireSession; the demo's Wrap refuses cross-origin posts). */
export function mountClearDone(signedIn: Group, jobs: Registry, tasks: MountedResource): void {
  signedIn.Handle("POST /teams/{team}/tasks/clear-done", (req, res) => {
    const person = From(req)?.Subject ?? "";
    const team = PathValue(req, "team") ?? "";
    const job = jobs.Start(person, "clear-done", clearDoneTasks(tasks, person, team), { Location: `/teams/${team}/tasks` });
    seeOther(res, `/jobs/${job.ID}`);
  });
}
