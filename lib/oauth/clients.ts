/*
 * The clients the authorization server knows, whichever way they came:
 *   - a `client_id` that is a URL names a Client ID Metadata Document,
 *     fetched (`fetchClientMetadata`) and cached: at most
 *     METADATA_CACHE_ENTRIES documents (the least recently used goes), each
 *     for its `Cache-Control: max-age` up to METADATA_CACHE_MAX_AGE, or
 *     METADATA_CACHE_DEFAULT_AGE when the answer does not say, never when it
 *     says no-store or no-cache (CIMD §4.4: within the server's bounds;
 *     refusals are never cached). Fetches of one URL at the same time share
 *     one request;
 *   - any other `client_id` is an RFC 7591 registration, a row of
 *     `oauth_clients` (`POST /oauth/register`, `handleRegister`).
 * Registrations are limited per client address (REGISTRATION_LIMIT, by
 * `clientKey`: an IPv4 address or an IPv6 /64) and expire when unused:
 * REGISTRATION_IDLE_TTL after their registration or last use (`touch`), a
 * registration no longer resolves, and `sweep` deletes it.
 */
import type { IncomingMessage } from "node:http";
import type { DB, Statement } from "../db/index.ts";
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
import { clientAddress, clientKey, durationProblem, parseOrigin } from "../internal/index.ts";
import type { OAuthClient } from "./client.ts";
import { fetchClientMetadata, MAX_METADATA_BYTES, type MetadataFetchOptions } from "./client-metadata.ts";
import { OAuthError } from "./errors.ts";
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

/** Registrations one client address may make: 10 an hour. */
export const REGISTRATION_LIMIT: { readonly Max: number; readonly Window: number } = Object.freeze({ Max: 10, Window: 60 * MINUTE });

/** How long a registration lives unused (since it was made or last used): 30 days. */
export const REGISTRATION_IDLE_TTL: number = 30 * DAY;

/** Random bytes in a registered `client_id` (128 bits, base64url). */
const CLIENT_ID_BYTES = 16;

/** Options of `OAuthClients`. */
export interface OAuthClientsOptions {
  /** The application's origin (`Options.Origin`); a loopback one is development, where documents may be fetched from this machine. */
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

interface Cached {
  client: OAuthClient;
  until: number;
}

/** The clients of latch's authorization server: metadata documents and registrations. */
export class OAuthClients {
  readonly #clock: Clock;
  readonly #random: RandomReader;
  readonly #clientIP: ((req: IncomingMessage) => string) | undefined;
  readonly #fetch: MetadataFetchOptions;
  readonly #cache = new Map<string, Cached>();
  readonly #inflight = new Map<string, Promise<OAuthClient>>();
  readonly #row: Statement<[string], ClientRow>;
  readonly #insert: Statement;
  readonly #count: Statement<[string, number], { n: number }>;
  readonly #nth: Statement<[string, number, number], { issued_at: number }>;
  readonly #touch: Statement;
  readonly #sweep: Statement;

  /**
   * Serves the clients of `db` (which has `ClientsSchema` applied). Throws
   * `HTTPError` ERR_HTTP_INVALID_OPTIONS when `Origin` is not an http(s)
   * origin or `fetchTimeout` is not a timer duration.
   */
  constructor(db: DB, options: OAuthClientsOptions) {
    const origin = parseOrigin(options.Origin);
    if (origin === undefined) throw new HTTPError("ERR_HTTP_INVALID_OPTIONS", "oauth clients: Origin must be an http or https origin");
    const timeout = options.fetchTimeout === undefined ? undefined : durationProblem(options.fetchTimeout);
    if (timeout !== undefined) throw new HTTPError("ERR_HTTP_INVALID_OPTIONS", `oauth clients: fetchTimeout ${timeout}`);
    const host = new URL(origin).hostname.replace(/^\[(.*)\]$/, "$1");
    this.#clock = options.clock ?? systemClock;
    this.#random = options.random ?? cryptoRandom;
    this.#clientIP = options.ClientIP;
    this.#fetch = {
      // CIMD §6.5: loopback only when the authorization server itself runs on loopback.
      allowLoopback: host === "localhost" || isLoopbackAddress(host),
      ...(options.ca === undefined ? {} : { ca: options.ca }),
      ...(options.fetchTimeout === undefined ? {} : { timeout: options.fetchTimeout }),
    };
    this.#row = db.prepare("SELECT * FROM oauth_clients WHERE client_id = ?");
    this.#insert = db.prepare(
      "INSERT INTO oauth_clients (client_id, client_name, redirect_uris, grant_types, registered_by, issued_at, last_used_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
    );
    this.#count = db.prepare("SELECT count(*) AS n FROM oauth_clients WHERE registered_by = ? AND issued_at > ?");
    this.#nth = db.prepare(
      "SELECT issued_at FROM oauth_clients WHERE registered_by = ? AND issued_at > ? ORDER BY issued_at LIMIT 1 OFFSET ?",
    );
    this.#touch = db.prepare("UPDATE oauth_clients SET last_used_at = ? WHERE client_id = ?");
    this.#sweep = db.prepare("DELETE FROM oauth_clients WHERE last_used_at <= ?");
  }

  /**
   * Returns the client `clientId` names: a URL's metadata document (cached),
   * or a live registration. Throws `OAuthError` "invalid_client" for an
   * unknown or expired registration and for a document refused
   * (`fetchClientMetadata` says why).
   */
  async resolve(clientId: string): Promise<OAuthClient> {
    if (/^https?:/i.test(clientId)) return this.#document(clientId);
    const row = this.#row.get(clientId);
    // RFC 6749 §5.2 invalid_client: unknown, or unused for REGISTRATION_IDLE_TTL.
    if (row === undefined || row.last_used_at <= this.#clock.now().getTime() - REGISTRATION_IDLE_TTL) {
      throw new OAuthError("invalid_client", "client: unknown client_id (registrations expire after 30 days unused)");
    }
    return registeredClient(row);
  }

  /**
   * Reports whether `client` may be sent to `uri`: one of its redirect URIs,
   * exactly, or a loopback one with another port (RFC 8252 §7.3).
   */
  redirectAllowed(client: OAuthClient, uri: string): boolean {
    // RFC 9700 §4.1.1, OWASP ASVS 5.0 §10.4.1: exact string comparison against the client's own list.
    return matchesRedirectURI(client.RedirectURIs, uri);
  }

  /**
   * Registers a client from a registration request's parsed body, counted
   * against `key` (the requester's `clientKey`; undefined when unknown: not
   * counted). Throws `OAuthError` `invalid_redirect_uri` or
   * `invalid_client_metadata` (400), or "temporarily_unavailable" (429,
   * `retryAfter` in seconds) past REGISTRATION_LIMIT.
   */
  register(body: unknown, key: string | undefined): RegistrationResponse {
    const fields = parseRegistration(body);
    const now = this.#clock.now().getTime();
    if (key !== undefined) {
      // OWASP ASVS 5.0 §10.4.7: unauthenticated registration is bounded per client address.
      const since = now - REGISTRATION_LIMIT.Window;
      const n = this.#count.get(key, since)?.n ?? 0;
      if (n >= REGISTRATION_LIMIT.Max) {
        const oldest = this.#nth.get(key, since, n - REGISTRATION_LIMIT.Max)?.issued_at ?? now;
        throw new RegistrationLimited(Math.max(1, Math.ceil((oldest + REGISTRATION_LIMIT.Window - now) / 1000)));
      }
    }
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

  /**
   * Answers `POST /oauth/register` (RFC 7591 §3): 201 with the registration
   * (§3.2.1), or the §3.2.2 error as JSON, 429 with `Retry-After` past the
   * limit. Always JSON, never the application's error page.
   */
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
      if (e instanceof RegistrationLimited) res.setHeader("Retry-After", String(e.retryAfter));
      writeJSON(res, e.status, e.toJSON());
    }
  };

  /** Marks a registration used now, restarting its REGISTRATION_IDLE_TTL; a metadata document's client has no row and is left alone. */
  touch(clientId: string): void {
    this.#touch.run(this.#clock.now().getTime(), clientId);
  }

  /** Deletes registrations unused for REGISTRATION_IDLE_TTL; returns how many. */
  sweep(): number {
    return this.#sweep.run(this.#clock.now().getTime() - REGISTRATION_IDLE_TTL).changes;
  }

  // The metadata document's client: cached, joined to a fetch under way, or fetched.
  #document(clientId: string): Promise<OAuthClient> {
    const now = this.#clock.now().getTime();
    const hit = this.#cache.get(clientId);
    if (hit !== undefined) {
      this.#cache.delete(clientId);
      if (hit.until > now) {
        this.#cache.set(clientId, hit);
        return Promise.resolve(hit.client);
      }
    }
    const pending = this.#inflight.get(clientId);
    if (pending !== undefined) return pending;
    const fetched = fetchClientMetadata(clientId, this.#fetch)
      .then(({ client, maxAge }) => {
        const age = Math.min(maxAge ?? METADATA_CACHE_DEFAULT_AGE, METADATA_CACHE_MAX_AGE);
        if (age > 0) this.#remember(clientId, { client, until: this.#clock.now().getTime() + age });
        return client;
      })
      .finally(() => this.#inflight.delete(clientId));
    this.#inflight.set(clientId, fetched);
    return fetched;
  }

  #remember(clientId: string, entry: Cached): void {
    this.#cache.delete(clientId);
    this.#cache.set(clientId, entry);
    // A Map iterates in insertion order, and a hit re-inserts: the first key is the least recently used.
    for (const oldest of this.#cache.keys()) {
      if (this.#cache.size <= METADATA_CACHE_ENTRIES) break;
      this.#cache.delete(oldest);
    }
  }
}

/** The registration limit's refusal: 429 with the seconds until a registration frees room. */
class RegistrationLimited extends OAuthError {
  readonly retryAfter: number;
  constructor(retryAfter: number) {
    super("temporarily_unavailable", `register: at most ${REGISTRATION_LIMIT.Max} registrations an hour from one address`, 429);
    this.retryAfter = retryAfter;
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
