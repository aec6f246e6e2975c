/*
 * The audit form of actors, and the bridge that appends the sign-in log's auth events with a verified subject to that
 * person's audit stream, actor human (SPEC §6.2).
 */
import type { EventStore } from "../events/index.ts";
import type { Logger } from "../http/index.ts";
import type { AuthEventKind, AuthEventSink } from "../session/index.ts";
import { humanActor, type Actor } from "./actor.ts";

/** Returns the audit form of `actor`: "human" or "agent:<name>". */
export function auditForm(actor: Actor): string {
  return actor.String();
}

/** The prefix of an auth event's type on the audit stream: "auth.signed_in"... */
export const AUTH_EVENT_TYPE_PREFIX = "auth.";

/**
 * Auth events whose subject is only an address someone typed, not a person who proved it: anyone could write them into
 * anyone's stream, without bound (a refused attempt is not rate limited), so they stay in the log.
 */
export const UNAUDITED_AUTH_EVENTS: ReadonlySet<AuthEventKind> = new Set<AuthEventKind>(["link_requested", "rate_limited"]);

/**
 * Returns an auth event sink appending each event with a verified subject (not `UNAUDITED_AUTH_EVENTS`) to that
 * subject's audit stream as `auth.<kind>`, its details as data (auth events carry no secret). A failing append is
 * thrown: the event is reported inside the transaction of the write it records, which rolls back with it (lib/events
 * README "A write and its event").
 */
export function auditAuthEvents(store: EventStore, logger: Logger): AuthEventSink {
  const actor = humanActor();
  return (event) => {
    if (event.Subject === undefined || event.Subject === "" || UNAUDITED_AUTH_EVENTS.has(event.Kind)) return;
    const { Kind, At: _at, Subject, ...details } = event;
    const data = Object.fromEntries(
      Object.entries(details)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => [k.toLowerCase(), v]),
    );
    try {
      store.appendAudit({ Subject, Actor: actor, Type: AUTH_EVENT_TYPE_PREFIX + Kind, Data: data });
    } catch (err) {
      logger.error("audit append failed", { event: Kind, error: err });
      throw err;
    }
  };
}
