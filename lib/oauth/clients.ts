/*
 * The clients the authorization server knows: a `client_id` that is a URL names a Client ID Metadata Document, fetched
 * (`fetchClientMetadata`) and cached within bounds; any other is an RFC 7591 registration, a row of `oauth_clients`,
 * limited per client address and expiring unused. The limits and defaults: README, Clients.
 */
import type { IncomingMessage } from "node:http";
import { SWEEP_STEP, type DB, type Statement } from "../db/index.ts";
import {
  cryptoRandom,
  HTTPError,
  isLatchError,
  readJSON,
  systemClock,
  writeJSON,
  type Clock,
  type HandlerFunc,
  type RandomReader,
} from "../http/index.ts";
import {
  clientAddress,
  clientKey,
  durationProblem,
  limitWait,
  parseOrigin,
  retryAfterSeconds,
  takeOutbound,
  waitOutside,
  type LimitLog,
} from "../internal/index.ts";
import type { OAuthClient } from "./client.ts";
import {
  clientIDURLProblem,
  fetchClientMetadata,
  MAX_METADATA_BYTES,
  METADATA_FETCH_TIMEOUT,
  metadataRefused,
  type MetadataFetchOptions,
} from "./client-metadata.ts";
import { OAuthError, OAuthRetryLater } from "./errors.ts";
import { matchesRedirectURI, redirectHosts } from "./redirect-uri.ts";
import { parseRegistration } from "./registration.ts";
import { isLoopbackAddress } from "./special-address.ts";

const MINUTE = 60 * 1000;
const DAY = 24 * 60 * MINUTE;

/** How many metadata documents are cached at most: 100. */
export const METADATA_CACHE_ENTRIES: number = 100;

/** The longest a metadata document is cached, whatever its `max-age`: 1 hour. */
export const METADATA_CACHE_MAX_AGE: number = 60 * MINUTE;

/** How long a metadata document whose answer gives no `max-age` is cached: 5 minutes. */
export const METADATA_CACHE_DEFAULT_AGE: number = 5 * MINUTE;

/** How long a refused or failed metadata document fetch is remembered (its refusal answered again without a fetch): 1 minute. */
export const METADATA_REFUSAL_CACHE_AGE: number = MINUTE;

/** How many refusals of metadata documents are remembered at most: 1,000. */
export const METADATA_REFUSAL_CACHE_ENTRIES: number = 1000;

/** Metadata documents fetched at once for one client address (`clientKey`): 2. The process-wide bound is OUTBOUND_FILES (lib/internal). */
export const METADATA_FETCHES_PER_CLIENT: number = 2;

/** Registrations one client address may make: 10 an hour. */
export const REGISTRATION_LIMIT: { readonly Max: number; readonly Window: number } = Object.freeze({ Max: 10, Window: 60 * MINUTE });

/** How long a registration lives unused (since it was made or last used): 30 days. */
export const REGISTRATION_IDLE_TTL: number = 30 * DAY;

/** Random bytes in a registered `client_id` (128 bits, base64url). */
const CLIENT_ID_BYTES = 16;

/** Options of `OAuthClients`. */
export interface OAuthClientsOptions {
  /** The application's origin (`Options.Origin`); a loopback one is development, where a request that arrived over loopback may name a document on this machine. */
  Origin: string;
  /** The client's address behind a proxy, for the registration limit. @default the socket's peer */
  ClientIP?: (req: IncomingMessage) => string;
  /** @default systemClock */
  clock?: Clock;
  /** @default cryptoRandom */
  random?: RandomReader;
  /** Extra trusted roots for fetching metadata documents (PEM): for tests and private CAs. */
  ca?: string | readonly string[];
  /** The time limit of one metadata document fetch, in ms. @default METADATA_FETCH_TIMEOUT */
  fetchTimeout?: number;
}

/** The RFC 7591 §3.2.1 answer to a registration. */
export interface RegistrationResponse {
  client_id: string;
  client_id_issued_at: number;
  client_name?: string;
  redirect_uris: string[];
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: "none";
}

interface ClientRow {
  client_id: string;
  client_name: string | null;
  redirect_uris: string;
  grant_types: string;
  issued_at: number;
  last_used_at: number;
}

/** The clients of latch's authorization server: metadata documents and registrations. */
export class OAuthClients {
  readonly #clock: Clock;
  readonly #random: RandomReader;
  readonly #clientIP: ((req: IncomingMessage) => string) | undefined;
  readonly #fetch: MetadataFetchOptions;
  readonly #loopbackOrigin: boolean;
  readonly #cache = new Map<string, { client: OAuthClient; until: number }>();
  readonly #refusals = new Map<string, { error: OAuthError; until: number }>();
  readonly #inflight = new Map<string, Promise<OAuthClient>>();
  readonly #row: Statement<[string], ClientRow>;
  readonly #insert: Statement;
  readonly #registrations: LimitLog;
  readonly #touch: Statement;
  readonly #sweep: Statement;

  /** Serves the clients of `db`. Throws `HTTPError` ERR_HTTP_INVALID_OPTIONS for a bad `Origin` or `fetchTimeout`. */
  constructor(db: DB, options: OAuthClientsOptions) {
    const origin = parseOrigin(options.Origin);
    if (origin === undefined) throw new HTTPError("ERR_HTTP_INVALID_OPTIONS", "oauth clients: Origin must be an http or https origin");
    const timeout = options.fetchTimeout === undefined ? undefined : durationProblem(options.fetchTimeout);
    if (timeout !== undefined) throw new HTTPError("ERR_HTTP_INVALID_OPTIONS", `oauth clients: fetchTimeout ${timeout}`);
    const host = new URL(origin).hostname.replace(/^\[(.*)\]$/, "$1");
    this.#clock = options.clock ?? systemClock;
    this.#random = options.random ?? cryptoRandom;
    this.#clientIP = options.ClientIP;
    // CIMD §6.5: loopback only when the authorization server itself runs on loopback: its origin, and the request (arrivedOverLoopback).
    this.#loopbackOrigin = host === "localhost" || isLoopbackAddress(host);
    this.#fetch = {
      ...(options.ca === undefined ? {} : { ca: options.ca }),
      ...(options.fetchTimeout === undefined ? {} : { timeout: options.fetchTimeout }),
    };
    this.#row = db.prepare("SELECT * FROM oauth_clients WHERE client_id = ?");
    this.#insert = db.prepare(
      "INSERT INTO oauth_clients (client_id, client_name, redirect_uris, grant_types, registered_by, issued_at, last_used_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
    );
    const newest = db.prepare<[string, number, number], { issued_at: number }>(
      "SELECT issued_at FROM oauth_clients WHERE registered_by = ? AND issued_at > ? ORDER BY issued_at DESC LIMIT 1 OFFSET ?",
    );
    // The registrations' own rows are the limit's log: `register` inserts the row a take is.
    this.#registrations = { newest: (key, since, nth) => newest.get(key, since, nth - 1)?.issued_at };
    this.#touch = db.prepare("UPDATE oauth_clients SET last_used_at = ? WHERE client_id = ?");
    this.#sweep = db.prepare("DELETE FROM oauth_clients WHERE rowid IN (SELECT rowid FROM oauth_clients WHERE last_used_at <= ? LIMIT ?)");
  }

  /**
   * Returns the client `clientId` names: a URL's metadata document (cached), or a live registration. `req`, the request
   * asking, is whom a fetch counts for and waits; without it, loopback documents are refused. Throws `OAuthError`
   * "invalid_client" for an unknown registration or a refused document, `OAuthRetryLater` (429, 503) past the fetch bounds.
   */
  async resolve(clientId: string, req?: IncomingMessage): Promise<OAuthClient> {
    if (/^https?:/i.test(clientId)) return this.#document(clientId, req);
    const row = this.#row.get(clientId);
    // RFC 6749 §5.2 invalid_client: unknown, or unused for REGISTRATION_IDLE_TTL.
    if (row === undefined || row.last_used_at <= this.#clock.now().getTime() - REGISTRATION_IDLE_TTL) {
      throw new OAuthError("invalid_client", "client: unknown client_id (registrations expire after 30 days unused)");
    }
    return registeredClient(row);
  }

  /** Reports whether `client` may be sent to `uri`: one of its redirect URIs, exactly, or a loopback one with another port. */
  redirectAllowed(client: OAuthClient, uri: string): boolean {
    // RFC 9700 §4.1.1, OWASP ASVS 5.0 §10.4.1: exact string comparison against the client's own list.
    return matchesRedirectURI(client.RedirectURIs, uri);
  }

  /**
   * Registers a client from a registration request's parsed body, counted against `key` (the requester's `clientKey`;
   * undefined: not counted). Throws `OAuthError` `invalid_redirect_uri` or `invalid_client_metadata` (400), or
   * "temporarily_unavailable" (429, `retryAfter` in seconds) past REGISTRATION_LIMIT.
   */
  register(body: unknown, key: string | undefined): RegistrationResponse {
    const fields = parseRegistration(body);
    const now = this.#clock.now().getTime();
    // OWASP ASVS 5.0 §10.4.7: unauthenticated registration is bounded per client address.
    const retryAfter = key === undefined ? 0 : limitWait(this.#registrations, key, REGISTRATION_LIMIT, now);
    if (retryAfter > 0) throw new RegistrationLimited(retryAfter);
    const id = Buffer.from(this.#random.read(CLIENT_ID_BYTES)).toString("base64url");
    const name = fields.clientName ?? null;
    this.#insert.run(id, name, JSON.stringify(fields.redirectURIs), JSON.stringify(fields.grantTypes), key ?? null, now, now);
    return {
      client_id: id,
      client_id_issued_at: Math.floor(now / 1000),
      ...(name === null ? {} : { client_name: name }),
      redirect_uris: [...fields.redirectURIs],
      grant_types: [...fields.grantTypes],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }

  /** Answers `POST /oauth/register` (RFC 7591 §3): 201 with the registration (§3.2.1), or the §3.2.2 error, always JSON. */
  readonly handleRegister: HandlerFunc = async (req, res) => {
    try {
      let body: unknown;
      try {
        body = await readJSON(req, { limit: MAX_METADATA_BYTES });
      } catch (e) {
        if (!isLatchError(e) || e.status === undefined) throw e;
        throw new OAuthError("invalid_client_metadata", `register: ${e.message}`, e.status);
      }
      const address = clientAddress(req, this.#clientIP);
      writeJSON(res, 201, this.register(body, address === undefined || address === "" ? undefined : clientKey(address)));
    } catch (e) {
      if (!(e instanceof OAuthError)) throw e;
      if (e instanceof OAuthRetryLater) res.setHeader("Retry-After", String(e.retryAfter));
      writeJSON(res, e.status, e.toJSON());
    }
  };

  /** Marks a registration used now, restarting its REGISTRATION_IDLE_TTL; a metadata document's client has no row and is left alone. */
  touch(clientId: string): void {
    this.#touch.run(this.#clock.now().getTime(), clientId);
  }

  /** Deletes at most `limit` registrations unused for REGISTRATION_IDLE_TTL (one step of `sweepInSteps`); returns how many. */
  sweep(limit: number = SWEEP_STEP): number {
    return this.#sweep.run(this.#clock.now().getTime() - REGISTRATION_IDLE_TTL, limit).changes;
  }

  // The metadata document's client: cached (or its refusal), joined to a fetch under way, or fetched, within the outbound bounds.
  #document(clientId: string, req: IncomingMessage | undefined): Promise<OAuthClient> {
    const allowLoopback = this.#loopbackOrigin && req !== undefined && arrivedOverLoopback(req);
    const problem = clientIDURLProblem(clientId, allowLoopback);
    if (problem !== undefined) return Promise.reject(metadataRefused(`client_id ${problem}`));
    // A document fetched for a loopback request is not what a request from elsewhere may see.
    const key = allowLoopback ? `loopback ${clientId}` : clientId;
    const now = this.#clock.now().getTime();
    const hit = recall(this.#cache, key, now);
    if (hit !== undefined) return Promise.resolve(hit.client);
    // CIMD §4.4 lets the server cache within its own bounds: a refusal costs its URL one fetch per METADATA_REFUSAL_CACHE_AGE.
    const refusal = recall(this.#refusals, key, now);
    if (refusal !== undefined) return Promise.reject(refusal.error);
    const pending = this.#inflight.get(key);
    if (pending !== undefined) return req === undefined ? pending : waitOutside(req, pending);
    const fetched = this.#fetchOnce(clientId, key, allowLoopback, req);
    return req === undefined ? fetched : waitOutside(req, fetched);
  }

  // Fetches `clientId` once for `key`, holding one of the process's outbound connections for the requester's address.
  #fetchOnce(clientId: string, key: string, allowLoopback: boolean, req: IncomingMessage | undefined): Promise<OAuthClient> {
    const address = req === undefined ? undefined : clientAddress(req, this.#clientIP);
    const release = takeOutbound(address === undefined || address === "" ? undefined : clientKey(address), METADATA_FETCHES_PER_CLIENT);
    // OWASP ASVS 5.0 §13.1.3, MCP 2025-11-25 authorization (Authorization Server Abuse Protection): fetches for
    // unauthenticated requests are bounded per client and in total, refused at once past the bound, never queued.
    if (release === "client" || release === "total") return Promise.reject(new FetchesBusy(release, this.#fetch.timeout));
    const fetched = fetchClientMetadata(clientId, { ...this.#fetch, allowLoopback })
      .then(
        ({ client, maxAge }) => {
          const age = Math.min(maxAge ?? METADATA_CACHE_DEFAULT_AGE, METADATA_CACHE_MAX_AGE);
          if (age > 0) remember(this.#cache, key, { client, until: this.#clock.now().getTime() + age }, METADATA_CACHE_ENTRIES);
          return client;
        },
        (error: unknown) => {
          if (error instanceof OAuthError) {
            const until = this.#clock.now().getTime() + METADATA_REFUSAL_CACHE_AGE;
            remember(this.#refusals, key, { error, until }, METADATA_REFUSAL_CACHE_ENTRIES);
          }
          throw error;
        },
      )
      .finally(() => {
        release();
        this.#inflight.delete(key);
      });
    this.#inflight.set(key, fetched);
    return fetched;
  }
}

// Whether `req` provably came from this machine to this machine: on a loopback address of the server, from a loopback
// peer. A request from another machine never arrives on a loopback address, whatever address the server listens on.
function arrivedOverLoopback(req: IncomingMessage): boolean {
  const { localAddress, remoteAddress } = req.socket;
  return localAddress !== undefined && remoteAddress !== undefined && isLoopbackAddress(localAddress) && isLoopbackAddress(remoteAddress);
}

// The live entry of `key` in an LRU cache, moved to the most recent end; an expired entry is dropped.
function recall<V extends { until: number }>(cache: Map<string, V>, key: string, now: number): V | undefined {
  const hit = cache.get(key);
  if (hit === undefined) return undefined;
  cache.delete(key);
  if (hit.until <= now) return undefined;
  cache.set(key, hit);
  return hit;
}

// Puts `entry` in an LRU cache of at most `max` entries.
function remember<V>(cache: Map<string, V>, key: string, entry: V, max: number): void {
  cache.delete(key);
  cache.set(key, entry);
  // A Map iterates in insertion order, and a hit re-inserts: the first key is the least recently used.
  for (const oldest of cache.keys()) {
    if (cache.size <= max) break;
    cache.delete(oldest);
  }
}

/** Past the outbound bounds: 429 for the requester's own share, 503 when the whole process is at OUTBOUND_FILES; both with `Retry-After`. */
class FetchesBusy extends OAuthRetryLater {
  constructor(bound: "client" | "total", timeout: number | undefined) {
    const why =
      bound === "client"
        ? `at most ${METADATA_FETCHES_PER_CLIENT} metadata documents are fetched at once for one address`
        : "too many metadata documents are being fetched";
    // A slot frees within one fetch's time limit.
    const retryAfter = retryAfterSeconds(timeout ?? METADATA_FETCH_TIMEOUT);
    super(`client metadata: ${why}; try again in ${retryAfter} s`, bound === "client" ? 429 : 503, retryAfter);
  }
}

/** The registration limit's refusal: 429 with the seconds until a registration frees room. */
class RegistrationLimited extends OAuthRetryLater {
  constructor(retryAfter: number) {
    super(`register: at most ${REGISTRATION_LIMIT.Max} registrations an hour from one address`, 429, retryAfter);
  }
}

function registeredClient(row: ClientRow): OAuthClient {
  const redirectURIs = storedList(row.redirect_uris);
  const host = redirectHosts(redirectURIs);
  return {
    ClientID: row.client_id,
    Name: row.client_name ?? host,
    Host: host,
    RedirectURIs: redirectURIs,
    GrantTypes: storedList(row.grant_types),
  };
}

// The strings of a JSON array column.
function storedList(column: string): string[] {
  const list: unknown = JSON.parse(column);
  return Array.isArray(list) ? list.filter((item): item is string => typeof item === "string") : [];
}
