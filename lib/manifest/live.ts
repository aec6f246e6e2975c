/*
 * Live pages (README "Live pages"): `GET <Route>/events`, a server-sent event stream of the changes to a resource's
 * records that its person may read, which `lib/client/live.js` follows. The mounted store tells the application's one
 * `LiveFeed` (one per event store) of every write once it has committed; an event carries no values, only
 * `{"id","change","version"}`, and its id `<boot>.<seq>` lets a reconnecting browser resume (WHATWG HTML §9.2.4). The
 * stream is latch's one event-stream endpoint (`eventStreams`), with its limits (SPEC.md §6.1).
 */
import { randomBytes } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { EventStore } from "../events/index.ts";
import { html, type HandlerFunc, type SafeHTML } from "../http/index.ts";
import { T } from "../i18n/index.ts";
import { encodeEvent, eventStreams, type ServeStream } from "../internal/index.ts";
import { StoreKind } from "./kinds.ts";
import { ownerOf } from "./scope.ts";
import type { ResourceSpec } from "./spec.ts";
import type { RecordStore, Writer } from "./store.ts";

/** Seconds between fetches of a live page whose stream failed (or could not open). */
export const LIVE_POLL_SECONDS = 5;
/** Changes a feed keeps for `Last-Event-ID` resume. */
export const LIVE_BACKLOG = 256;

/** One change to a record, as a stream tells it. */
interface Change {
  seq: number;
  resource: string;
  /** The record's owner for a user-scoped resource, its team for a team-scoped one; "" for an unscoped one (everyone hears it). */
  audience: string;
  id: string;
  change: "created" | "updated" | "deleted";
  version: number;
}

type Listener = (change: Change) => void;

/** The changes of one application's records, in the order they committed, and who listens. */
export class LiveFeed {
  readonly boot: string = randomBytes(6).toString("base64url");
  #seq = 0;
  readonly #backlog: Change[] = [];
  // By "<resource> <audience>" (a resource's name holds no space): a write reaches only the streams that may hear it.
  readonly #listeners = new Map<string, Set<Listener>>();
  /** The live streams of the application's resources, counted per person together. */
  readonly streams: ServeStream = eventStreams();

  publish(change: Omit<Change, "seq">): void {
    const told: Change = { ...change, seq: ++this.#seq };
    this.#backlog.push(told);
    if (this.#backlog.length > LIVE_BACKLOG) this.#backlog.shift();
    for (const listener of this.#listeners.get(`${told.resource} ${told.audience}`) ?? []) listener(told);
  }

  /** The changes after `seq` that `audience` hears, or undefined when the backlog no longer reaches back to it. */
  since(seq: number, resource: string, audience: string): Change[] | undefined {
    const oldest = this.#backlog[0]?.seq ?? this.#seq + 1;
    if (seq > this.#seq || seq < oldest - 1) return undefined;
    return this.#backlog.filter((c) => c.seq > seq && c.resource === resource && c.audience === audience);
  }

  listen(resource: string, audience: string, listener: Listener): () => void {
    const key = `${resource} ${audience}`;
    const listeners = this.#listeners.get(key) ?? new Set<Listener>();
    this.#listeners.set(key, listeners.add(listener));
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0) this.#listeners.delete(key);
    };
  }
}

const feeds = new WeakMap<EventStore, LiveFeed>();

/** The feed of the application whose records `events` records: one per event store, shared by its resources. */
export function liveFeed(events: EventStore): LiveFeed {
  let feed = feeds.get(events);
  if (feed === undefined) feeds.set(events, (feed = new LiveFeed()));
  return feed;
}

/** Tells `feed` of `who`'s change of record `id` once it has landed (a bulk change tells of each record after its commit). */
export function tellLanded(feed: LiveFeed, spec: ResourceSpec, who: Writer, id: string, change: Change["change"], version: number): void {
  feed.publish({ resource: spec.Name, audience: ownerOf(spec, who.owner) ?? "", id, change, version });
}

/** Returns `store` telling `feed` of each create, update and delete once it has landed. */
export function liveStore(spec: ResourceSpec, store: RecordStore, feed: LiveFeed): RecordStore {
  const tell = (who: Writer, id: string, change: Change["change"], version: number): void =>
    tellLanded(feed, spec, who, id, change, version);
  return Object.freeze({
    ...store,
    create(who, values) {
      const created = store.create(who, values);
      tell(who, created.id, "created", created.version);
      return created;
    },
    update(who, id, version, mine) {
      const outcome = store.update(who, id, version, mine);
      if (outcome.kind === "ok") tell(who, id, "updated", outcome.version);
      return outcome;
    },
    delete(who, id) {
      const deleted = store.delete(who, id);
      if (deleted) tell(who, id, "deleted", 0);
      return deleted;
    },
  } satisfies RecordStore);
}

/**
 * Returns the handler of `GET <Route>/events`; `person` is the session subject (the route sits behind the session gate),
 * `owner` whose records the request reaches (the person, or the team of the path).
 */
export function liveHandler(
  spec: ResourceSpec,
  feed: LiveFeed,
  person: (req: IncomingMessage) => string,
  owner: (req: IncomingMessage) => string,
  open?: OpenStreams,
): HandlerFunc {
  return function liveEvents(req, res) {
    const subject = person(req);
    // SPEC §2.5 UserScoped: a person hears of their own records only; TeamScoped: of their team's.
    const audience = ownerOf(spec, owner(req)) ?? "";
    feed.streams(req, res, subject, (writer) => {
      const encode = (c: Change): string =>
        encodeEvent({
          event: "change",
          id: `${feed.boot}.${c.seq}`,
          data: JSON.stringify({ id: c.id, change: c.change, version: c.version }),
        });
      const stop = feed.listen(spec.Name, audience, (c) => writer.update(encode(c)));
      const forget = open?.add(audience, subject, () => writer.end());
      const resumed = resume(req.headers["last-event-id"], feed, spec.Name, audience);
      if (resumed === undefined) writer.update(encodeEvent({ event: "reset", data: "{}" }));
      // One write: the writer keeps only the latest of writes it cannot flush, and a replay must arrive whole.
      else if (resumed.length > 0) writer.update(resumed.map(encode).join(""));
      return () => (stop(), forget?.());
    });
  };
}

/** The open live streams of a team resource, by team and person: a membership's end closes its person's (issue 38). */
export class OpenStreams {
  readonly #ends = new Map<string, Set<() => void>>();

  /** Keeps `end` for `subject`'s stream on `team`'s records; returns its removal. */
  add(team: string, subject: string, end: () => void): () => void {
    const key = `${team} ${subject}`;
    const ends = this.#ends.get(key) ?? new Set();
    this.#ends.set(key, ends.add(end));
    return () => {
      ends.delete(end);
      if (ends.size === 0) this.#ends.delete(key);
    };
  }

  /** Ends `subject`'s streams on `team`'s records. */
  close(team: string, subject: string): void {
    for (const end of this.#ends.get(`${team} ${subject}`) ?? []) end();
  }
}

/** The changes a reconnecting stream missed: none for a new one, undefined when they cannot be told (then `reset`). */
function resume(header: string | string[] | undefined, feed: LiveFeed, resource: string, audience: string): Change[] | undefined {
  if (header === undefined) return [];
  const match = typeof header === "string" ? /^([A-Za-z0-9_-]+)\.([0-9]{1,15})$/.exec(header) : null;
  if (match === null || match[1] !== feed.boot) return undefined;
  return feed.since(Number(match[2]), resource, audience);
}

/**
 * The notices of a live record page, hidden until `live.js` shows one: the record changed and the form showed it
 * (`updated`); it changed while the form was being edited (`changed`: Mergeable offers the merge, which saving from the
 * form's base version is; Exclusive lists the new values and keeps the input, and saving answers 409 as ever); it was
 * deleted (`deleted`).
 */
export function liveNoticesHTML(req: IncomingMessage, spec: ResourceSpec): SafeHTML {
  const changed =
    spec.Store === StoreKind.Mergeable
      ? html`<p>${T(req, "resource.live.changed_merge")}</p><p><button type="button" data-live-merge>${T(req, "resource.live.merge")}</button></p>`
      : html`<p>${T(req, "resource.live.changed_kept")}</p><dl class="entered" data-live-current data-yes="${T(req, "resource.yes")}" data-no="${T(req, "resource.no")}"></dl>`;
  return html`<div class="card notice ok" role="status" data-live-notice="updated" hidden><p>${T(req, "resource.live.updated")}</p></div>
<div class="card notice bad" role="alert" data-live-notice="changed" hidden>${changed}</div>
<div class="card notice bad" role="alert" data-live-notice="deleted" hidden><p>${T(req, "resource.live.deleted")}</p></div>`;
}
