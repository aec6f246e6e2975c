/*
 * The error pages: `errorPage` is `Options.ErrorPage` (SPEC §2.2: a 500
 * the app never saw, and `writeError` answers), showing the reference that
 * is also in the log; `notFoundPage` is the `Mux.NotFound` handler: every path no route matches.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Assets } from "latch/assets";
import { html, type HandlerFunc } from "latch/http";
import { T, Tf } from "latch/i18n";
import { Icon } from "latch/icons";
import { render } from "./layout.ts";

/** `Options.ErrorPage`: the status, in words, and the reference. */
export function errorPage(req: IncomingMessage, res: ServerResponse, assets: Assets, status: number, ref: string): void {
  const title =
    status === 404
      ? T(req, "error.not_found")
      : status === 403
        ? T(req, "error.forbidden")
        : status < 500
          ? T(req, "error.bad_request")
          : T(req, "error.title");
  render(
    req,
    res,
    assets,
    {
      title,
      body: html`<section class="card notice bad" role="alert" data-status="${status}">
  <h1>${Icon("alert")} ${title}</h1>
  <p>${Tf(req, "error.reference", { ref })}</p>
  <p><a href="/">${T(req, "error.back_home")}</a></p>
</section>`,
    },
    status,
  );
}

/**
 * Mounted on `/`, the least specific pattern: a 404 page for every unmatched path; also lib/jobs' `NotFound` (an
 * unknown job id) and lib/operators'. `shell` renders the page (an application's own layout, the starter's by default).
 */
export function notFoundPage(assets: Assets, shell: typeof render = render): HandlerFunc {
  return (req, res) =>
    shell(
      req,
      res,
      assets,
      {
        title: T(req, "error.not_found"),
        body: html`<section class="card" data-status="404">
  <h1>${T(req, "error.not_found")}</h1>
  <p>${T(req, "starter.not_found.body")}</p>
  <p><a class="button" href="/">${T(req, "error.back_home")}</a></p>
</section>`,
      },
      404,
    );
}
