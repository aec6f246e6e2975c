/*
 * The one event-stream endpoint of latch (the jobs' `GET /jobs/{id}/events`,
 * a resource's `GET <Route>/events`) and the limits every stream keeps
 * (SPEC.md §6.1, §8). Its caller has found who asks and what they follow;
 * this answers the rest the same way for both:
 *
 * - HEAD: 200 with the stream's headers and no body;
 * - at most `max` open streams per person (across what the caller's
 *   `EventStreams` serves); one more is refused with 429, a plain-text
 *   reason and `Retry-After`. Refusing the newcomer (rather than ending the
 *   oldest) keeps the streams already open steady, and never sets two tabs
 *   evicting each other on every reconnect; the browser module treats a
 *   refused stream as a failed one and polls;
 * - the stream itself (`EventWriter`: `retry:`, heartbeat, write deadline,
 *   lifetime, the runtime's stream share of connections);
 * - the end on server shutdown (`Serve`'s shutdown signal), so `Serve`
 *   need not wait out its grace period; the browser reconnects after
 *   `retry`. A client going away closes the response, which the writer
 *   watches, and the count and the caller's subscription are let go.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { endOnShutdown, EventWriter, type StreamLimits } from "./event-writer.ts";
import { PersonCount } from "./person-count.ts";
import { writeText } from "./respond.ts";
import { shutdownSignal } from "./shutdown-signal.ts";

/** Interval of `: ping` heartbeats: 15 seconds (SPEC.md §6.1, §8), in ms; the jobs' public `HEARTBEAT_INTERVAL`. */
export const STREAM_HEARTBEAT = 15000;
/** Per-write deadline of an event stream: 10 seconds, in ms. */
export const STREAM_WRITE_TIMEOUT = 10000;
/** Bounded lifetime of one event stream: 5 minutes, in ms. */
export const STREAM_LIFETIME: number = 5 * 60 * 1000;
/** Reconnection delay sent to the browser as `retry:`: 3 seconds, in ms. */
export const STREAM_RETRY = 3000;
/** Open event streams per person: a browser holds at most 6 connections per host, so 10 covers two devices. */
export const MAX_STREAMS_PER_PERSON = 10;

/** The limits of SPEC.md §6.1 as `EventWriter` takes them. */
export const STREAM_LIMITS: StreamLimits = Object.freeze({
  heartbeat: STREAM_HEARTBEAT,
  writeTimeout: STREAM_WRITE_TIMEOUT,
  lifetime: STREAM_LIFETIME,
  retry: STREAM_RETRY,
});

const HEADERS = { "Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-cache, no-transform" };

/**
 * What a stream follows once open: it subscribes `writer` to its changes,
 * writes what the browser must see first, and returns the function that
 * unsubscribes (run once, when the stream closes).
 */
export type FollowFunc = (writer: EventWriter) => (() => void) | undefined;

/** The event streams of one endpoint (or of several counted together), under one set of limits. */
export class EventStreams {
  readonly #open: PersonCount;
  readonly #limits: StreamLimits;

  constructor(limits: StreamLimits = STREAM_LIMITS, max: number = MAX_STREAMS_PER_PERSON) {
    this.#limits = limits;
    this.#open = new PersonCount(max);
  }

  /** Answers `req`: HEAD, 429, or the stream of `person`, which `follow` feeds. */
  serve(req: IncomingMessage, res: ServerResponse, person: string, follow: FollowFunc): void {
    if (req.method === "HEAD") {
      res.writeHead(200, HEADERS).end();
      return;
    }
    // OWASP ASVS 5.0 §13.1.3 (resource management): long-lived streams are bounded per person.
    if (!this.#open.admit(person, res)) {
      res.setHeader("Cache-Control", "no-store");
      // RFC 6585 §4: a 429 may say when to come back; RFC 9110 §10.2.3: in whole seconds (a stream's own `retry:`).
      res.setHeader("Retry-After", String(Math.ceil(this.#limits.retry / 1000)));
      return writeText(res, 429, "Too many open event streams.");
    }
    const writer = new EventWriter(res, this.#limits);
    const shutdown = shutdownSignal(req.socket);
    const forget = shutdown === undefined ? undefined : endOnShutdown(shutdown, writer);
    let unfollow: (() => void) | undefined;
    writer.onClose(() => {
      forget?.();
      unfollow?.();
    });
    unfollow = follow(writer);
    if (shutdown?.aborted === true) writer.end();
  }
}
