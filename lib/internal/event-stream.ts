/*
 * The one event-stream endpoint (SPEC.md §6.1, §8; lib/internal/README.md).
 * A newcomer past `perPerson` is refused, not the oldest ended: open streams
 * stay steady and two tabs never evict each other; the browser polls instead.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { EventWriter, STREAM_HEADERS, type StreamLimits } from "./event-writer.ts";
import { personCount } from "./person-count.ts";
import { retryAfterSeconds } from "./limiter.ts";
import { writeText } from "./respond.ts";
import { shutdownSignal } from "./shutdown-signal.ts";

/**
 * SPEC.md §6.1's limits, in ms: a `: ping` every 15 s (the jobs' `HEARTBEAT_INTERVAL`), a 10 s write deadline, a 5-minute lifetime,
 * `retry: 3000`; and 10 open streams per person (a browser holds at most 6 connections per host, so 10 covers two devices).
 */
export const STREAM_LIMITS = { heartbeat: 15_000, writeTimeout: 10_000, lifetime: 300_000, retry: 3_000, perPerson: 10 } as const;

/** Subscribes `writer` to what a stream follows, writes what the browser sees first, and returns how to unsubscribe. */
export type FollowFunc = (writer: EventWriter) => (() => void) | undefined;

/** Answers a request for the stream of `person`, which `follow` feeds: HEAD, 429, or the stream. */
export type ServeStream = (req: IncomingMessage, res: ServerResponse, person: string, follow: FollowFunc) => void;

/** Returns the endpoint of event streams counted together (at most `limits.perPerson` per person) under `limits`. */
export function eventStreams(limits: StreamLimits & { perPerson: number } = STREAM_LIMITS): ServeStream {
  const admit = personCount(limits.perPerson);
  return (req, res, person, follow) => {
    if (req.method === "HEAD") {
      res.writeHead(200, STREAM_HEADERS).end();
      return;
    }
    // OWASP ASVS 5.0 §13.1.3 (resource management): long-lived streams are bounded per person.
    if (!admit(person, res)) {
      res.setHeader("Cache-Control", "no-store");
      // RFC 6585 §4: a 429 may say when to come back; RFC 9110 §10.2.3: in whole seconds (a stream's own `retry:`).
      res.setHeader("Retry-After", String(retryAfterSeconds(limits.retry)));
      return writeText(res, 429, "Too many open event streams.");
    }
    const writer = new EventWriter(res, limits);
    const shutdown = shutdownSignal(req.socket);
    const forget = shutdown === undefined ? undefined : endOnShutdown(shutdown, writer);
    const open = openByPerson.get(person) ?? new Set<EventWriter>();
    openByPerson.set(person, open.add(writer));
    let unfollow: (() => void) | undefined;
    writer.onClose(() => {
      forget?.();
      unfollow?.();
      open.delete(writer);
      if (open.size === 0 && openByPerson.get(person) === open) openByPerson.delete(person);
    });
    unfollow = follow(writer);
    if (shutdown?.aborted === true) writer.end();
  };
}

// Every open stream by the person it streams to, whichever endpoint serves it: their access ending ends them (endStreamsOf).
const openByPerson = new Map<string, Set<EventWriter>>();

/**
 * Ends the open event streams of `person`, or of everyone when `person` is undefined: their sessions were revoked (a
 * suspension, an incident, "sign out everywhere"), so a stream opened by one of them stops now rather than at its
 * lifetime (OWASP ASVS 5.0 §7.4.1: a terminated session grants nothing more). A browser reconnects only with a session.
 */
export function endStreamsOf(person?: string): void {
  const ending = person === undefined ? [...openByPerson.values()] : [openByPerson.get(person) ?? new Set<EventWriter>()];
  for (const open of ending) for (const writer of [...open]) writer.end();
}

const openByShutdown = new WeakMap<AbortSignal, Set<EventWriter>>();

/** Ends `writer` when `shutdown` aborts; returns how to let it go. One listener per server: one per stream would cost each more than a kilobyte. */

function endOnShutdown(shutdown: AbortSignal, writer: EventWriter): () => void {
  const open = openByShutdown.get(shutdown) ?? new Set<EventWriter>();
  if (!openByShutdown.has(shutdown)) {
    openByShutdown.set(shutdown, open);
    shutdown.addEventListener("abort", () => open.forEach((w) => w.end()), { once: true });
  }
  open.add(writer);
  return () => void open.delete(writer);
}
