/*
 * The job status page and its fragment, for lib/jobs `newHandlers`
 * (`Render`, `RenderFragment`). The fragment is lib/jobs' default
 * (`renderFragmentHTML`: status word, progress text such as "3/10", a
 * <progress> bar when the text starts with a fraction, see
 * lib/jobs/README.md#progress, the error of a failed job), fetched under
 * the page's locale prefix; the stylesheet shows a
 * spinner only while the job runs and marks a failed one as failed.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Assets } from "latch/assets";
import { html } from "latch/http";
import { LocaleFrom, T } from "latch/i18n";
import { metaRefresh, renderFragmentHTML, renderStatusHTML, type Config, type PageData, type StatusLabels } from "latch/jobs";
import { notFoundPage } from "./errors.ts";
import { render } from "./layout.ts";

function labels(req: IncomingMessage): StatusLabels {
  return { running: T(req, "jobs.running"), done: T(req, "jobs.done"), failed: T(req, "jobs.failed_label") };
}

/**
 * The page's data with the fragment and events paths under the page's
 * locale prefix ("/ar/jobs/…/fragment"): the script fetches them without
 * the page's URL, so without the prefix a page opened at /ar/… would turn
 * English at its first update (its words come from the fragment).
 */
function inLocale(req: IncomingMessage, data: PageData): PageData {
  const prefix = `/${LocaleFrom(req)}`;
  return { ...data, FragmentPath: prefix + data.FragmentPath, EventsPath: prefix + data.EventsPath };
}

/**
 * The page renderers of the jobs handlers, and the 404 page of an unknown job id (`NotFound`, the starter's not-found
 * page, still a 404); `shell` renders the pages (an application's own layout, the starter's by default).
 */
export function jobPages(assets: Assets, shell: typeof render = render): Pick<Config, "Render" | "RenderFragment" | "NotFound"> {
  return {
    NotFound: notFoundPage(assets, shell),
    Render: (req, res, data) =>
      shell(req, res, assets, {
        title: T(req, "starter.jobs.title"),
        head: metaRefresh(data),
        scripts: ["jobs.js"],
        body: html`<h1>${T(req, "starter.jobs.title")}</h1>
<section class="card">${renderStatusHTML(inLocale(req, data), { labels: labels(req) })}</section>
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
