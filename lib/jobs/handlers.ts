// The three job routes (SPEC.md §4.3), mounted inside the group that requires a session (§5.8).
import type { HandlerFunc } from "../http/index.ts";
import { destination, findJob, pageData, refuse, resolveConfig, type Config } from "./config.ts";
import { eventsHandler } from "./events.ts";
import { Status } from "./job.ts";

/** The job route handlers. */
export interface Handlers {
  /** `GET /jobs/{id}`: the full page, or 303 to `Location` once done. */
  StatusPage: HandlerFunc;
  /** `GET /jobs/{id}/fragment`: the fragment alone, or 204 with `Framework-Location` once finished. */
  Fragment: HandlerFunc;
  /** `GET /jobs/{id}/events`: the server-sent event stream. */
  Events: HandlerFunc;
}

/**
 * Builds the job handlers. Every route answers 401 without an owner and 404
 * for an unknown job or another owner's job. Throws `JobsError`
 * (`ERR_JOBS_INVALID_CONFIG`) when `Jobs`, `Render` or `RenderFragment` is
 * missing or an option is invalid (SPEC.md §7).
 *
 * @example
 * const h = newHandlers({ Jobs: registry, Render: renderPage, RenderFragment: renderPart, ID: (r) => PathValue(r, "id") });
 * mux.Handle("GET /jobs/{id}", h.StatusPage);
 * mux.Handle("GET /jobs/{id}/fragment", h.Fragment);
 * mux.Handle("GET /jobs/{id}/events", h.Events);
 */
export function newHandlers(config: Config): Handlers {
  const cfg = resolveConfig(config);
  return {
    StatusPage: async function jobStatusPage(req, res) {
      const found = findJob(cfg, req);
      if (found.job === undefined && found.status === 404 && cfg.notFound !== undefined) {
        // SPEC.md §4.3: 404 for an unknown job or another owner's, in the application's words.
        res.statusCode = 404;
        res.setHeader("Cache-Control", "no-store");
        return cfg.notFound(req, res);
      }
      if (found.job === undefined) return refuse(res, found.status);
      const job = found.job;
      res.setHeader("Cache-Control", "no-store");
      // SPEC.md §4.3: when the job is done, respond 303 to Location.
      if (job.Status === Status.Done && job.Location !== "") {
        res.writeHead(303, { Location: job.Location }).end();
        return;
      }
      await cfg.render(req, res, pageData(cfg, job));
    },
    Fragment: async function jobFragment(req, res) {
      const found = findJob(cfg, req);
      if (found.job === undefined) return refuse(res, found.status);
      const job = found.job;
      res.setHeader("Cache-Control", "no-store");
      // SPEC.md §4.3: when done, 204 with Framework-Location carrying the destination.
      if (job.Status !== Status.Running) {
        res.writeHead(204, { "Framework-Location": destination(cfg, job) }).end();
        return;
      }
      await cfg.renderFragment(req, res, pageData(cfg, job));
    },
    Events: eventsHandler(cfg),
  };
}
