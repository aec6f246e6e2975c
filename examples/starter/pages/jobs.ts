/*
 * The job status page and its fragment, for lib/jobs `newHandlers`
 * (`Render`, `RenderFragment`). The fragment is lib/jobs' default
 * (`renderFragmentHTML`: status word, progress text such as "3/10", a
 * <progress> bar, the error of a failed job); the stylesheet shows a
 * spinner only while the job runs and marks a failed one as failed.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Assets } from "latch/assets";
import { html } from "latch/http";
import { T } from "latch/i18n";
import { metaRefresh, renderFragmentHTML, renderStatusHTML, type Config, type StatusLabels } from "latch/jobs";
import { render } from "./layout.ts";

function labels(req: IncomingMessage): StatusLabels {
  return { running: T(req, "jobs.running"), done: T(req, "jobs.done"), failed: T(req, "jobs.failed_label") };
}

/** The page renderers of the jobs handlers. */
export function jobPages(assets: Assets): Pick<Config, "Render" | "RenderFragment"> {
  return {
    Render: (req, res, data) =>
      render(req, res, assets, {
        title: T(req, "starter.jobs.title"),
        head: metaRefresh(data),
        scripts: ["jobs.js"],
        body: html`<h1>${T(req, "starter.jobs.title")}</h1>
<section class="card">${renderStatusHTML(data, { labels: labels(req) })}</section>
<p><a href="/account">${T(req, "jobs.continue")}</a></p>`,
      }),
    RenderFragment: (req, res, data) => {
      res.setHeader("Content-Type", "text/html; charset=utf-8");
      res.end(renderFragmentHTML(data, labels(req)).toString());
    },
  };
}

/** The answer to `ErrOwnerBusy` (429): the person already runs the most jobs, said in the app's words (SPEC §7). */
export function jobsBusyPage(req: IncomingMessage, res: ServerResponse, assets: Assets): void {
  const body = html`<p class="card notice bad" role="alert">${T(req, "jobs.busy")}</p>`;
  render(req, res, assets, { title: T(req, "starter.jobs.title"), body }, 429);
}
