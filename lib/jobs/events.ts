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
 * An owner holds at most `MaxStreamsPerOwner` streams at once: one more is
 * refused with 429 and a plain-text reason. Refusing the newcomer (rather
 * than ending the oldest) keeps the streams already open steady, and never
 * sets two tabs evicting each other on every reconnect; the browser shim
 * treats a refused stream as a failed one and keeps polling the fragment.
 *
 * The stream also ends cleanly when the server shuts down (`Serve`'s
 * shutdown signal), so `Serve` need not wait out its grace period; the
 * browser reconnects after `retry`. A client going away closes the
 * response, which the writer watches. The streams of one server share one
 * shutdown listener (a per-request AbortController would cost each of
 * 10,000 streams more than a kilobyte).
 */
import { type HandlerFunc } from "../http/index.ts";
import { encodeEvent, endOnShutdown, EventWriter, shutdownSignal, writeText } from "../internal/index.ts";
import { destination, findJob, refuse, type ResolvedConfig } from "./config.ts";
import { Status, type Job } from "./job.ts";

/** Returns the Events handler of a resolved config. */
export function eventsHandler(cfg: ResolvedConfig): HandlerFunc {
  return function jobEvents(req, res) {
    const found = findJob(cfg, req);
    if (found.job === undefined) return refuse(res, found.status);
    const job = found.job;
    if (req.method === "HEAD") {
      res.writeHead(200, { "Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-cache, no-transform" });
      res.end();
      return;
    }
    // OWASP ASVS 5.0 §13.1.3 (resource management): long-lived streams are bounded per owner.
    const open = cfg.streams.get(found.owner) ?? 0;
    if (open >= cfg.maxStreams) {
      res.setHeader("Cache-Control", "no-store");
      return writeText(res, 429, "Too many open event streams.");
    }
    cfg.streams.set(found.owner, open + 1);
    const writer = new EventWriter(res, {
      heartbeat: cfg.heartbeat,
      writeTimeout: cfg.writeTimeout,
      lifetime: cfg.lifetime,
      retry: cfg.retry,
    });
    const send = (current: Job | undefined): void => {
      if (current === undefined) writer.final(encodeEvent({ event: "gone", data: JSON.stringify({ status: "gone" }) }));
      else if (current.Status === Status.Running) writer.update(encodeEvent({ event: "update", data: payload(cfg, current) }));
      else writer.final(encodeEvent({ event: "done", data: payload(cfg, current) }));
    };
    const unsubscribe = cfg.jobs.Subscribe(job.ID, job.Owner, send);
    const shutdown = shutdownSignal(req.socket);
    const forget = shutdown === undefined ? undefined : endOnShutdown(shutdown, writer);
    writer.onClose(() => {
      forget?.();
      const left = (cfg.streams.get(found.owner) ?? 1) - 1;
      if (left === 0) cfg.streams.delete(found.owner);
      else cfg.streams.set(found.owner, left);
      unsubscribe?.();
    });
    // Read again: the job may have moved between Get and Subscribe.
    send(unsubscribe === undefined ? undefined : cfg.jobs.Get(job.ID, job.Owner));
    if (shutdown?.aborted === true) writer.end();
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
