/*
 * Provider metadata (OpenID Connect Discovery 1.0), checked and cached. A failure is not cached, and a
 * later step's failure drops a good entry (`invalidate`), so moved endpoints are found on the next sign-in.
 */
import type { Clock } from "../../http/index.ts";
import { ownField } from "../../internal/index.ts";
import { OIDCError } from "./errors.ts";
import { fetchJSON } from "./fetch-json.ts";

/** How long discovered metadata is reused before it is fetched again: 1 hour. */
export const DISCOVERY_TTL: number = 60 * 60 * 1000;

/** The parts of a provider's metadata latch uses. */
export interface ProviderMetadata {
  /** The issuer identifier exactly as the provider states it; ID tokens must carry it in `iss`. */
  issuer: string;
  authorizationEndpoint: URL;
  tokenEndpoint: URL;
  jwksURI: URL;
  /** `authorization_response_iss_parameter_supported` (RFC 9207 §3). */
  issParameterSupported: boolean;
}

/** Removes one trailing slash, so "https://id.example/" and "https://id.example" compare equal. */
export function normalizeIssuer(issuer: string): string {
  return issuer.endsWith("/") ? issuer.slice(0, -1) : issuer;
}

/** Returns the discovery document's URL for `issuer` (OIDC Discovery §4: the issuer, minus a trailing slash, + path). */
export function discoveryURL(issuer: string): URL {
  return new URL(`${normalizeIssuer(issuer)}/.well-known/openid-configuration`);
}

function endpoint(doc: object, name: string, issuer: URL): URL {
  const value = ownField(doc, name);
  if (typeof value !== "string") throw discoveryError(`${name} missing`);
  const url = URL.parse(value);
  if (url === null) throw discoveryError(`${name} is not a URL`);
  // OIDC Discovery §3: endpoints are https; plain http only beside an http issuer (development).
  if (url.protocol !== "https:" && !(url.protocol === "http:" && issuer.protocol === "http:")) {
    throw discoveryError(`${name} is not https`);
  }
  return url;
}

function discoveryError(reason: string): OIDCError {
  return new OIDCError("ERR_SIGNIN_OIDC_DISCOVERY", `parse provider metadata: ${reason}`);
}

/** Checks a discovery document against the issuer and picks the endpoints; else throws `OIDCError` `ERR_SIGNIN_OIDC_DISCOVERY`. */
export function parseMetadata(doc: unknown, issuer: string): ProviderMetadata {
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) throw discoveryError("not a JSON object");
  const stated = ownField(doc, "issuer");
  // OIDC Discovery §4.3: the issuer in the document must be the one we asked (modulo a trailing slash).
  if (typeof stated !== "string" || normalizeIssuer(stated) !== normalizeIssuer(issuer)) {
    throw discoveryError("issuer does not match the configured issuer");
  }
  const base = new URL(stated);
  return {
    issuer: stated,
    authorizationEndpoint: endpoint(doc, "authorization_endpoint", base),
    tokenEndpoint: endpoint(doc, "token_endpoint", base),
    jwksURI: endpoint(doc, "jwks_uri", base),
    issParameterSupported: ownField(doc, "authorization_response_iss_parameter_supported") === true,
  };
}

/** Options of `MetadataCache`. */
export interface MetadataCacheOptions {
  issuer: string;
  /** Deadline of one fetch, in ms. */
  timeout: number;
  clock: Clock;
  /** @default DISCOVERY_TTL */
  ttl?: number;
}

/** A provider's metadata, fetched on first use and cached for `ttl`. */
export class MetadataCache {
  readonly #options: MetadataCacheOptions;
  #entry: { metadata: Promise<ProviderMetadata>; fetchedAt: number } | undefined;

  constructor(options: MetadataCacheOptions) {
    this.#options = options;
  }

  /**
   * Returns the metadata, fetching it when absent or older than the TTL.
   * Throws `OIDCError` (unreachable, bad response, discovery); a failure is
   * not cached.
   */
  get(): Promise<ProviderMetadata> {
    const now = this.#options.clock.now().getTime();
    const ttl = this.#options.ttl ?? DISCOVERY_TTL;
    if (this.#entry !== undefined && now - this.#entry.fetchedAt < ttl) return this.#entry.metadata;
    const metadata = this.#fetch();
    const entry = { metadata, fetchedAt: now };
    this.#entry = entry;
    metadata.catch(() => {
      if (this.#entry === entry) this.#entry = undefined;
    });
    return metadata;
  }

  /** Drops the cached metadata so the next `get` fetches it again. */
  invalidate(): void {
    this.#entry = undefined;
  }

  async #fetch(): Promise<ProviderMetadata> {
    const { issuer, timeout } = this.#options;
    const res = await fetchJSON(discoveryURL(issuer), { signal: AbortSignal.timeout(timeout), followRedirects: true });
    if (res.status !== 200) throw discoveryError(`status ${res.status}`);
    return parseMetadata(res.body, issuer);
  }
}
