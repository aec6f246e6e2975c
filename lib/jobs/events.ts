/*
 * `GET /jobs/{id}/events` (SPEC.md §6.1): `retry:` and the job's state,
 * then `update`, `done` or `gone` (the last two end the stream), through
 * latch's one event-stream endpoint (`eventStreams`). An unknown or another
 * owner's job is a 404 like the other routes (§4.3), never a stream.
 */
import { type HandlerFunc } from "../http/index.ts";
import { encodeEvent } from "../internal/index.ts";
import { destination, findJob, refuse, type ResolvedConfig } from "./config.ts";
import { Status, type Job } from "./job.ts";

/** Returns the Events handler of a resolved config. */
export function eventsHandler(cfg: ResolvedConfig): HandlerFunc {
  return function jobEvents(req, res) {
    const found = findJob(cfg, req);
    if (found.job === undefined) return refuse(res, found.status);
    const job = found.job;
    cfg.streams(req, res, found.owner, (writer) => {
      const send = (current: Job | undefined): void => {
        if (current === undefined) writer.final(encodeEvent({ event: "gone", data: JSON.stringify({ status: "gone" }) }));
        else if (current.Status === Status.Running) writer.update(encodeEvent({ event: "update", data: payload(cfg, current) }));
        else writer.final(encodeEvent({ event: "done", data: payload(cfg, current) }));
      };
      const unsubscribe = cfg.jobs.Subscribe(job.ID, job.Owner, send);
      // Read again: the job may have moved between Get and Subscribe.
      send(unsubscribe === undefined ? undefined : cfg.jobs.Get(job.ID, job.Owner));
      return unsubscribe;
    });
  };
}

function payload(cfg: ResolvedConfig, job: Job): string {
  const err = job.Status === Status.Failed ? { err: job.Err } : {};
  return JSON.stringify({ status: job.Status, progress: job.Progress, location: destination(cfg, job), ...err });
}
