/* Options and outcomes of `InboxProvider`; a misconfiguration fails at construction, not on the first sign-in. */
import type { Clock, Logger, RandomReader } from "../../http/index.ts";
import { durationProblem } from "../../internal/index.ts";
import { OIDCError } from "./errors.ts";

/** How long `isClaimed` waits for a lookup before answering "not claimed", in ms. */
export const DEFAULT_LOOKUP_TIMEOUT: number = 1500;

/** Deadline of each request to the provider (discovery, key set, token), in ms. */
export const DEFAULT_HTTP_TIMEOUT: number = 5000;

/** Answers whether `address` has a claimed inbox at the provider; should stop when `signal` aborts. */
export type LookupFunc = (address: string, signal: AbortSignal) => Promise<boolean>;

/** Options of `InboxProvider`. Field names follow the sign-in `Config` they come from. */
export interface InboxProviderOptions {
  /** The OpenID Connect issuer identifier, e.g. "https://id.example". */
  Issuer: string;
  /** The OAuth client_id: the app's `Origin`, e.g. "https://app.example". */
  ClientID: string;
  /** Where the provider sends the browser back: `<Origin>/auth/callback`. */
  RedirectURI: string;
  /** The sign-in `InstanceKey`; the pending blob's MAC key is derived from it. Must not be empty. */
  InstanceKey: string;
  /** Replaces the WebFinger lookup. @default WebFinger at the issuer's origin */
  Lookup?: LookupFunc;
  /** @default DEFAULT_LOOKUP_TIMEOUT */
  LookupTimeout?: number;
  /** @default DEFAULT_HTTP_TIMEOUT */
  HTTPTimeout?: number;
  /** @default systemClock */
  Clock?: Clock;
  /** Where refused callbacks and failed lookups are logged. @default discardLogger */
  Logger?: Logger;
  /** Source of state, nonce and code verifier. @default cryptoRandom */
  Random?: RandomReader;
}

/** Why `InboxProvider.complete` refused a callback. Every one maps to `?err=keymail&force=1` (SPEC.md §4.1). */
export type CompleteFailure =
  | "no_blob"
  | "bad_blob"
  | "expired"
  | "state"
  | "iss"
  | "provider_error"
  | "token_exchange"
  | "id_token"
  | "email_unverified"
  | "email_mismatch"
  | "provider_down"
  | "discovery";

/** The outcome of a callback: the verified address, or why it was refused and the `NewRef` it was logged under. */
export type CompleteResult =
  { ok: true; address: string; authTime: Date | undefined } | { ok: false; reason: CompleteFailure; ref: string };

/** The result of `InboxProvider.begin`. */
export interface BeginResult {
  /** The authorization request URL to redirect (303) the browser to. */
  location: string;
  /** The full `Set-Cookie` value carrying the sealed pending blob. */
  cookie: string;
}

function invalid(reason: string): OIDCError {
  return new OIDCError("ERR_SIGNIN_OIDC_INVALID_CONFIG", `inbox provider: ${reason}`);
}

function duration(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  const problem = durationProblem(value);
  if (problem !== undefined) throw invalid(`${name} ${problem}`);
  return value;
}

/** The options once checked: URLs parsed, defaults applied (except clock, logger, randomness). */
export interface CheckedOptions {
  issuer: string;
  clientID: string;
  redirectURI: URL;
  lookupTimeout: number;
  httpTimeout: number;
}

/** Checks the options; throws `OIDCError` `ERR_SIGNIN_OIDC_INVALID_CONFIG` naming the field (README's table says when). */
export function checkOptions(options: InboxProviderOptions): CheckedOptions {
  // SPEC.md §5 item 9 and §7: an empty InstanceKey is refused.
  if (options.InstanceKey === "") throw invalid("InstanceKey is empty");
  const issuer = URL.parse(options.Issuer);
  // OIDC Discovery §2: the issuer is a URL with no query or fragment.
  if (issuer === null || !["https:", "http:"].includes(issuer.protocol) || issuer.search !== "" || issuer.hash !== "") {
    throw invalid("Issuer must be an http(s) URL without query or fragment");
  }
  const client = URL.parse(options.ClientID);
  if (client === null || client.origin !== options.ClientID) throw invalid("ClientID must be the app's origin");
  const redirect = URL.parse(options.RedirectURI);
  // The pending cookie is set on ClientID's origin and must come back to RedirectURI.
  if (redirect === null || redirect.origin !== client.origin) throw invalid("RedirectURI must be on the ClientID origin");
  return {
    issuer: options.Issuer,
    clientID: options.ClientID,
    redirectURI: redirect,
    lookupTimeout: duration(options.LookupTimeout, DEFAULT_LOOKUP_TIMEOUT, "LookupTimeout"),
    httpTimeout: duration(options.HTTPTimeout, DEFAULT_HTTP_TIMEOUT, "HTTPTimeout"),
  };
}
