/*
 * The provider-facing half of the inbox-provider upgrade (SPEC.md §1, §5 item 2): `isClaimed` and
 * `begin` for Begin, `complete` for the callback (its checks in order: pending blob, state, RFC 9207
 * `iss`, provider error, code exchange, ID token, email_verified, email = address; oidc/README.md).
 */
import { cryptoRandom, discardLogger, NewRef, systemClock, type Clock, type Logger, type RandomReader } from "../../http/index.ts";
import { LatchCookie, PKCE_METHOD, computeCodeChallenge, deriveKey, equalSecret, openBlob, sealBlob } from "../../internal/index.ts";
import { MetadataCache } from "./discovery.ts";
import { isOIDCError } from "./errors.ts";
import { verifyIDToken } from "./id-token.ts";
import { KeySet } from "./jwks.ts";
import {
  checkOptions,
  type BeginResult,
  type CheckedOptions,
  type CompleteFailure,
  type CompleteResult,
  type InboxProviderOptions,
  type LookupFunc,
} from "./options.ts";
import { createPending, OIDC_PENDING_COOKIE, parsePending, PENDING_BLOB_TTL, PENDING_SEAL_LABEL, type PendingBlob } from "./pending.ts";
import { exchangeCode } from "./token-exchange.ts";
import { lookupWebFinger } from "./webfinger.ts";
import { callbackParam, deadline, settleBefore } from "./util.ts";

/** The `claims` request parameter asking for `auth_time` in the ID token (OIDC Core §5.5.1). */
const AUTH_TIME_CLAIMS = JSON.stringify({ id_token: { auth_time: { essential: true } } });

/** Thrown inside `complete` to stop at the first failed check; never leaves this file. */
class Refusal extends Error {
  override name: string = "Refusal";
  readonly reason: CompleteFailure;
  readonly detail: string | undefined;
  constructor(reason: CompleteFailure, detail?: string) {
    super(`complete callback: ${reason}`);
    this.reason = reason;
    this.detail = detail;
  }
}

/**
 * An OpenID Connect provider that signs in addresses with a claimed inbox, with its cached metadata
 * and key set (one per app). Throws `OIDCError` `ERR_SIGNIN_OIDC_INVALID_CONFIG` for unusable options.
 */
export class InboxProvider {
  readonly #options: CheckedOptions;
  readonly #lookup: LookupFunc;
  readonly #key: Buffer;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #random: RandomReader;
  readonly #metadata: MetadataCache;
  readonly #cookie: LatchCookie;
  #keys: KeySet | undefined;

  constructor(options: InboxProviderOptions) {
    this.#options = checkOptions(options);
    this.#key = deriveKey(options.InstanceKey, PENDING_SEAL_LABEL);
    this.#clock = options.Clock ?? systemClock;
    this.#logger = options.Logger ?? discardLogger;
    this.#random = options.Random ?? cryptoRandom;
    const issuer = this.#options.issuer;
    this.#lookup = options.Lookup ?? ((address, signal) => lookupWebFinger(issuer, address, signal));
    this.#metadata = new MetadataCache({ issuer, timeout: this.#options.httpTimeout, clock: this.#clock });
    this.#cookie = new LatchCookie(OIDC_PENDING_COOKIE, this.#options.redirectURI.origin);
  }

  /**
   * Reports whether `address` has a claimed inbox at the provider. Any
   * error, or no answer within the lookup timeout, is `false` (logged at
   * debug level): sign-in never blocks on the provider. Never rejects.
   */
  async isClaimed(address: string): Promise<boolean> {
    const { signal, cancel } = deadline(this.#options.lookupTimeout);
    try {
      return (await settleBefore(this.#lookup(address, signal), signal)) === true;
    } catch (cause) {
      this.#logger.debug("signin oidc: lookup failed, using the emailed link", { error: cause });
      return false;
    } finally {
      cancel();
    }
  }

  /**
   * Starts the provider's flow for `address`: returns the authorization URL
   * and the `Set-Cookie` value of the sealed pending blob. Throws
   * `OIDCError` when the provider's metadata cannot be had; the caller then
   * falls back to the emailed link. Throws `TypeError` for an empty address.
   */
  async begin(address: string): Promise<BeginResult> {
    if (address === "") throw new TypeError("begin: empty address");
    const metadata = await this.#metadata.get();
    const pending = createPending(address, this.#random);
    const sealed = sealBlob(this.#key, pending, new Date(this.#clock.now().getTime() + PENDING_BLOB_TTL));
    const url = new URL(metadata.authorizationEndpoint);
    const params: Record<string, string> = {
      response_type: "code",
      client_id: this.#options.clientID,
      redirect_uri: this.#options.redirectURI.href,
      scope: "openid email",
      state: pending.state,
      nonce: pending.nonce,
      code_challenge: computeCodeChallenge(pending.verifier),
      code_challenge_method: PKCE_METHOD,
      login_hint: address,
      // OIDC Core §5.5: ask for auth_time in the ID token, so the session's AuthTime is when the person authenticated.
      claims: AUTH_TIME_CLAIMS,
    };
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
    return { location: url.href, cookie: this.#cookie.set(sealed, Math.floor(PENDING_BLOB_TTL / 1000)) };
  }

  /** Returns the `Set-Cookie` value deleting the pending cookie; send it on every callback outcome. */
  clearCookie(): string {
    return this.#cookie.clear();
  }

  /**
   * Finishes a callback from the callback's query and `Cookie` header.
   * Answers the pending address once every check passed; otherwise the
   * first failed check, logged (warn) with a `NewRef` reference and no
   * secrets. Throws only for programmer errors.
   */
  async complete(query: URLSearchParams, cookieHeader: string | undefined): Promise<CompleteResult> {
    try {
      const { address, authTime } = await this.#complete(query, cookieHeader);
      return { ok: true, address, authTime };
    } catch (e) {
      const refusal = e instanceof Refusal ? e : this.#classify(e);
      const ref = NewRef();
      const attrs = { ref, reason: refusal.reason };
      this.#logger.warn("signin oidc: callback refused", refusal.detail === undefined ? attrs : { ...attrs, detail: refusal.detail });
      if (["provider_down", "discovery", "token_exchange"].includes(refusal.reason)) this.#metadata.invalidate();
      return { ok: false, reason: refusal.reason, ref };
    }
  }

  #classify(e: unknown): Refusal {
    if (!isOIDCError(e)) throw e;
    if (e.code === "ERR_SIGNIN_OIDC_UNREACHABLE") return new Refusal("provider_down", e.message);
    if (e.code === "ERR_SIGNIN_OIDC_TOKEN_EXCHANGE") return new Refusal("token_exchange", e.message);
    return new Refusal("discovery", e.message);
  }

  #open(cookieHeader: string | undefined): PendingBlob {
    const sealed = this.#cookie.read(cookieHeader);
    if (sealed === undefined || sealed === "") throw new Refusal("no_blob");
    // SPEC.md §2.6: the pending blob is sealed with an HMAC keyed by InstanceKey; checked in constant time.
    const opened = openBlob(this.#key, sealed, this.#clock.now());
    if (!opened.ok) throw new Refusal(opened.reason === "expired" ? "expired" : "bad_blob", opened.reason);
    const pending = parsePending(opened.data);
    if (pending === undefined) throw new Refusal("bad_blob", "fields");
    return pending;
  }

  async #complete(query: URLSearchParams, cookieHeader: string | undefined): Promise<{ address: string; authTime: Date | undefined }> {
    const pending = this.#open(cookieHeader);
    const state = callbackParam(query, "state");
    // RFC 6749 §10.12: the state must be the one this browser's blob holds (CSRF), even on error responses.
    if (state === undefined || !equalSecret(state, pending.state)) throw new Refusal("state");
    const metadata = await this.#metadata.get();
    const iss = callbackParam(query, "iss");
    // RFC 9207 §2.4: iss, when present, must be our issuer; when the provider advertises it, it is required.
    if (query.has("iss") ? iss !== metadata.issuer : metadata.issParameterSupported) throw new Refusal("iss");
    // RFC 6749 §4.1.2.1: an error response (access_denied...) ends the flow.
    if (query.has("error")) throw new Refusal("provider_error", printable(query.get("error")));
    const code = callbackParam(query, "code");
    if (code === undefined || code === "") throw new Refusal("provider_error", "no code");
    const idToken = await exchangeCode({
      tokenEndpoint: metadata.tokenEndpoint,
      code,
      redirectURI: this.#options.redirectURI.href,
      clientID: this.#options.clientID,
      codeVerifier: pending.verifier,
      signal: AbortSignal.timeout(this.#options.httpTimeout),
    }).catch((e: unknown) => {
      // A token endpoint that answers garbage failed the exchange; one that does not answer is down.
      if (isOIDCError(e) && e.code === "ERR_SIGNIN_OIDC_BAD_RESPONSE") throw new Refusal("token_exchange", e.message);
      throw e;
    });
    if (this.#keys === undefined || this.#keys.uri !== metadata.jwksURI.href) {
      this.#keys = new KeySet(metadata.jwksURI, this.#options.httpTimeout);
    }
    const keys = this.#keys;
    const verified = await verifyIDToken(idToken, (kid, alg) => keys.candidates(kid, alg), {
      issuer: metadata.issuer,
      audience: this.#options.clientID,
      nonce: pending.nonce,
      now: this.#clock.now(),
    });
    if (!verified.ok) throw new Refusal("id_token", verified.reason);
    // OIDC Core §5.1: an email is the user's only when email_verified is true.
    if (!verified.claims.emailVerified) throw new Refusal("email_unverified");
    const email = verified.claims.email;
    // SPEC.md §2.6: the subject is the verified address; it must be the one sign-in started with.
    if (email === undefined || email.toLowerCase() !== pending.address.toLowerCase()) throw new Refusal("email_mismatch");
    return { address: pending.address, authTime: verified.claims.authTime };
  }
}

function printable(value: string | null): string {
  return value !== null && /^[\x20-\x7e]{1,64}$/.test(value) ? value : "invalid";
}
