/* Configuration of the sign-in component (SPEC §2.6): the contract's fields first, then latch's, with defaults. */
import type { IncomingMessage, ServerResponse } from "node:http";
import { requireTables, type DB } from "../db/index.ts";
import { isLocalPath, type Clock, type Logger } from "../http/index.ts";
import { countProblem, durationProblem, parseOrigin } from "../internal/index.ts";
import type { Mailer } from "../mail/index.ts";
import type { AuthEventSink, Identity, Sessions } from "../session/index.ts";
import { ErrEmptyInstanceKey, INSTANCE_KEY_HINT, MIN_INSTANCE_KEY_BYTES, SigninError } from "./errors.ts";
import type { RateLimits } from "./rate.ts";

/** Options of the inbox-provider upgrade (OpenID Connect issuer). */
export interface ProviderConfig {
  /** The issuer URL, e.g. "https://id.example.com". */
  Issuer: string;
  /** Replaces the WebFinger lookup: reports whether the address has a claimed inbox there. */
  Lookup?: (address: string, signal: AbortSignal) => Promise<boolean>;
  /** Milliseconds the claim lookup may take before it counts as "not claimed". */
  LookupTimeout?: number;
}

/** Configuration of the sign-in component. */
export interface Config {
  /** The database handle (apply `session.Schema` then `signin.Schema`). */
  DB: DB;
  /** Base of emailed links; decides cookie attributes; the OAuth `client_id`. */
  Origin: string;
  /** Seals the pending provider blob with an HMAC. Must not be empty. */
  InstanceKey: string;
  /** Mail sender. @default a logging sender that warns on every send (development only) */
  Mailer?: Mailer;
  /** Admission gate for a verified address. @default admit every verified address */
  Authorize?: (address: string) => boolean | Promise<boolean>;
  /**
   * The word an `Authorize` refusal of `address` answers with, `SigninPath?err=<word>` (lower-case letters and
   * underscores; lib/operators answers "suspended"). @default "address"
   */
  AuthorizeRefusal?: (address: string) => string | undefined;
  /** Called where the session would be minted (the passkey `Gate`): `true` when it answered the request itself, `false` to proceed. */
  SecondFactor?: (req: IncomingMessage, res: ServerResponse, session: Identity) => boolean | Promise<boolean>;
  /** Path of the application's sign-in page; outcome redirects land there. */
  SigninPath: string;
  /** Path of the signed-in landing. */
  SignedInPath: string;
  /** Sender address of sign-in emails. @default "no-reply@<Origin host>" */
  MailFrom?: string;
  /** Where `RequireFreshSession` sends a stale session (with `?next=`). @default SigninPath */
  StalePath?: string;
  /** A session store to share with other components. @default one built from this config */
  Sessions?: Sessions;
  /** Absolute session lifetime in ms. @default DefaultSessionTTL */
  SessionTTL?: number;
  /** Rolling idle timeout in ms. @default 7 days (DEFAULT_IDLE_TIMEOUT in session/store.ts) */
  IdleTimeout?: number;
  /** Where the session revocation forms return. @default SignedInPath */
  SessionsPath?: string;
  /** Receives every auth event (sign-ins, refusals, rate limits, sessions ended...). @default logAuthEvents(Logger) */
  OnAuthEvent?: AuthEventSink;
  /** Emailed-link (and code) lifetime in ms. @default LINK_TTL (10 minutes) */
  LinkTTL?: number;
  /** Rate limits. @default DEFAULT_RATE_LIMITS */
  RateLimits?: RateLimits;
  /** The client IP for rate limits (behind a proxy, its header; IPv6 by /64). @default the peer address (none on a unix socket) */
  ClientIP?: (req: IncomingMessage) => string;
  /** Upgrades claimed addresses to the provider's OpenID flow. */
  Provider?: ProviderConfig;
  /** @default newLogger() */
  Logger?: Logger;
  /** @default systemClock */
  Clock?: Clock;
}

/** Checks `config` and returns its origin; throws `ErrEmptyInstanceKey`, or `SigninError` ERR_SIGNIN_INVALID_CONFIG naming the field. */
export function checkConfig(config: Config): string {
  // SPEC §2.6, §5.9: the instance key seals the pending blob; empty is refused.
  if (typeof config.InstanceKey !== "string" || config.InstanceKey === "") throw new ErrEmptyInstanceKey();
  // RFC 2104 §3: an HMAC key shorter than the hash's output (32 bytes for SHA-256) weakens it.
  const keyBytes = Buffer.byteLength(config.InstanceKey);
  if (keyBytes < MIN_INSTANCE_KEY_BYTES) {
    const why = `InstanceKey must carry at least ${MIN_INSTANCE_KEY_BYTES} bytes (it has ${keyBytes}); ${INSTANCE_KEY_HINT}`;
    throw new SigninError("ERR_SIGNIN_INVALID_CONFIG", `signin: ${why}`);
  }
  const origin = parseOrigin(config.Origin);
  if (origin === undefined) throw new SigninError("ERR_SIGNIN_INVALID_CONFIG", "signin: Origin must be an http or https URL");
  requireTables(config.DB, "signin", "signin.Schema", ["signin_links", "signin_rate_events", "signin_accounts"]);
  // The optional paths default to the required ones, so every Location we build is checked here.
  const paths: Record<string, unknown> = {
    SigninPath: config.SigninPath,
    SignedInPath: config.SignedInPath,
    StalePath: config.StalePath ?? config.SigninPath,
    SessionsPath: config.SessionsPath ?? config.SignedInPath,
  };
  for (const [name, path] of Object.entries(paths)) {
    // RFC 9110 §10.2.2 / RFC 3986 §4.2: these go into Location; "//host" (or "/\host" to browsers) leaves the origin.
    if (!(typeof path === "string" && isLocalPath(path))) {
      throw new SigninError("ERR_SIGNIN_INVALID_CONFIG", `signin: ${name} must be a local path ("/..." but not "//" or "/\\")`);
    }
  }
  // LinkTTL is minutes long: the shared duration check. Session lifetimes are only compared with
  // stored times, never handed to a timer, and may exceed MAX_TIMER_MS (the 30-day default does).
  const durations: [string, number | undefined, (value: unknown) => string | undefined][] = [
    ["LinkTTL", config.LinkTTL, durationProblem],
    ["SessionTTL", config.SessionTTL, countProblem],
    ["IdleTimeout", config.IdleTimeout, countProblem],
  ];
  for (const [name, value, problem] of durations) {
    const why = value === undefined ? undefined : problem(value);
    if (why !== undefined) throw new SigninError("ERR_SIGNIN_INVALID_CONFIG", `signin: ${name} ${why}`);
  }
  return origin;
}
