/*
 * Default HTML for job pages (SPEC.md §4.3): the polling attributes and the
 * no-script meta refresh only while the job runs, so nothing polls a final
 * page. The refresh sits in `<noscript>`: removing one after parsing would
 * not cancel it.
 */
import { html, type SafeHTML } from "../http/index.ts";
import type { PageData } from "./config.ts";
import { Status } from "./job.ts";

/** Words shown for each status; replace them to localize. */
export type StatusLabels = Readonly<Record<Status, string>>;

/** English status words. */
export const DEFAULT_STATUS_LABELS: StatusLabels = { running: "Running", done: "Done", failed: "Failed" };

/** The progress as a percentage when the text starts with "n/m" (0 <= n <= m) or "p%" (at most 100), else undefined (README.md#progress). */
function progressPercent(progress: string): number | undefined {
  const ratio = /^\s*(\d{1,15})\s*\/\s*(\d{1,15})\b/.exec(progress);
  if (ratio !== null) {
    const n = Number(ratio[1]);
    const m = Number(ratio[2]);
    return m > 0 && n <= m ? Math.round((n / m) * 100) : undefined;
  }
  const percent = /^\s*(\d{1,3}(?:\.\d+)?)\s*%/.exec(progress);
  if (percent === null) return undefined;
  const value = Number(percent[1]);
  return value <= 100 ? Math.round(value) : undefined;
}

/** Renders the fragment: status word, job name, progress text, a `<progress>` bar for a fraction, a failed job's error; every text escaped. */
export function renderFragmentHTML(data: PageData, labels: StatusLabels = DEFAULT_STATUS_LABELS): SafeHTML {
  const job = data.Job;
  const percent = progressPercent(job.Progress);
  return html`<p class="job-status" data-status="${job.Status}"><strong>${labels[job.Status]}</strong> <span class="job-name">${job.Name}</span>${
    job.Progress === "" ? "" : html` <span class="job-progress">${job.Progress}</span>`
  }</p>${percent === undefined ? "" : html`<progress max="100" value="${percent}" aria-label="${labels[job.Status]} ${job.Name}">${percent}%</progress>`}${
    job.Status === Status.Failed ? html`<p class="job-error" role="alert">${job.Err}</p>` : ""
  }`;
}

/** Renders the polling container around the fragment; `{ push: false }` leaves out `data-poll-push` (plain polling). */

export function renderStatusHTML(data: PageData, options: { labels?: StatusLabels; push?: boolean } = {}): SafeHTML {
  const inner = renderFragmentHTML(data, options.labels);
  if (data.Job.Status !== Status.Running) return html`<div class="job" aria-live="polite">${inner}</div>`;
  const push = options.push === false ? "" : html` data-poll-push="${data.EventsPath}"`;
  return html`<div class="job" aria-live="polite" data-poll="${data.FragmentPath}" data-poll-every="${data.PollSeconds}"${push}>${inner}</div>`;
}

/** Renders the no-script meta refresh for the page head: only while the job runs, empty otherwise. */
export function metaRefresh(data: PageData): SafeHTML {
  if (data.Job.Status !== Status.Running) return html``;
  return html`<noscript><meta http-equiv="refresh" content="${data.PollSeconds}"></noscript>`;
}
