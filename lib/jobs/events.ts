/*
 * `GET /jobs/{id}/events` (SPEC.md §6.1). The stream opens with `retry:`
 * and the job's current state, then follows the job:
 *
 * - `update`: the job changed while running (progress);
 * - `done`: the job finished (done or failed); the stream then ends;
 * - `gone`: the followed job was forgotten (retention or registry shutdown);
 *   the stream then ends.
 *
 * A request for an unknown job or another owner's job is answered 404 like
 * the other two routes (SPEC.md §4.3), never with a stream. Data is small
 * JSON: `{"status","progress","location"}` plus `"err"` for a failed job,
 * where `location` is where the browser should go once the job is over.
 *
 * The stream is latch's one event-stream endpoint (`eventStreams`): HEAD,
 * `MaxStreamsPerOwner` (one more: 429), §6.1's limits, shutdown.
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
  const data: Record<string, string> = Object.create(null);
  data["status"] = job.Status;
  data["progress"] = job.Progress;
  data["location"] = destination(cfg, job);
  if (job.Status === Status.Failed) data["err"] = job.Err;
  return JSON.stringify(data);
}
