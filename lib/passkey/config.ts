/*
 * Configuration of the passkey component (SPEC §2.7: at least
 * `ConfirmPath`; the rest are latch's documented fields).
 */
import type { DB } from "../db/index.ts";
import type { Clock, Logger } from "../http/index.ts";
import type { IncomingMessage } from "node:http";
import type { AuthEventSink, Sessions } from "../session/index.ts";
import { PasskeyError } from "./errors.ts";

/** WebAuthn L3 §5.10.6 user verification requirement. */
export type UserVerification = "required" | "preferred" | "discouraged";

/** Configuration of the passkey component. */
export interface Config {
  /** The database handle (apply `passkey.Schema` after the sessions schema). */
  DB: DB;
  /** The session store the sign-in component mints into (`signin.Sessions`). */
  Sessions: Sessions;
  /** The application's origin; assertions must come from exactly this origin. */
  Origin: string;
  /** Path where the second-factor prompt is shown. */
  ConfirmPath: string;
  /** Where a completed sign-in lands. */
  SignedInPath: string;
  /** The sign-in page; a missing or expired pending sign-in goes there with `?err=expired`. */
  SigninPath: string;
  /** Where passkey management forms return. @default SignedInPath */
  ManagePath?: string;
  /** Where a stale session is sent (with `?next=`) before deleting a passkey. @default ConfirmPath */
  StalePath?: string;
  /** Relying party id. @default the Origin's hostname */
  RPID?: string;
  /** Relying party name shown by authenticators. @default the Origin's hostname */
  RPName?: string;
  /** User verification policy; "required" also makes the server demand the UV flag. @default "preferred" */
  UserVerification?: UserVerification;
  /** COSE algorithms offered, in preference order. @default DEFAULT_ALGORITHMS ([-8, -7, -257]) */
  Algorithms?: readonly number[];
  /** Accept ceremonies run in a cross-origin iframe. @default false */
  AllowCrossOrigin?: boolean;
  /** How recent `AuthTime` must be to register (finish) or delete a passkey, in ms. @default 300000 (5 minutes) */
  FreshFor?: number;
  /** Receives the component's auth events (passkey added/removed, step-up, recovery code used...). @default logAuthEvents(Logger) */
  OnAuthEvent?: AuthEventSink;
  /** The client address named in auth events (behind a proxy, read your proxy's header). @default the socket's peer address */
  ClientIP?: (req: IncomingMessage) => string;
  /** @default NewLogger() */
  Logger?: Logger;
  /** @default systemClock */
  Clock?: Clock;
}

/** Default freshness window for registering (finish) or deleting a passkey: 5 minutes. */
export const DEFAULT_FRESH_FOR: number = 5 * 60 * 1000;

/** Base name of the pending half-session cookie (`__Host-` prefixed on https). */
export const PENDING_COOKIE: string = "framework_pending";

/** What the constructor keeps from a checked config. */
export interface CheckedConfig {
  /** The serialized origin, e.g. "https://example.org". */
  origin: string;
  /** The RP ID: `RPID`, or the origin's host name. */
  rpID: string;
}

function invalid(reason: string, cause?: unknown): PasskeyError {
  return new PasskeyError("ERR_PASSKEY_INVALID_CONFIG", `passkey config: ${reason}`, { step: "config", ...(cause !== undefined && { cause }) });
}

/** Reports whether `path` is a local path: one leading "/", not "//" or "/\", no control characters. */
function isLocalPath(path: unknown): boolean {
  return typeof path === "string" && /^\/(?![/\\])/.test(path) && !/[\u0000-\u001f\u007f]/.test(path);
}

/**
 * Checks `config` at construction, so a mistake fails at startup rather
 * than as a broken ceremony or an open redirect. Throws PasskeyError
 * ERR_PASSKEY_INVALID_CONFIG naming the field.
 */
export function checkConfig(config: Config): CheckedConfig {
  let url: URL;
  try {
    url = new URL(config.Origin);
  } catch (cause) {
    throw invalid("Origin is not a URL", cause);
  }
  // RFC 6454 §4: only an http(s) URL has a tuple origin; WebAuthn L3 §5.1.3 compares C.origin against it.
  if (url.protocol !== "http:" && url.protocol !== "https:") throw invalid("Origin must be an http or https URL");
  const paths: [string, string | undefined][] = [
    ["ConfirmPath", config.ConfirmPath],
    ["SignedInPath", config.SignedInPath],
    ["SigninPath", config.SigninPath],
    ["ManagePath", config.ManagePath],
    ["StalePath", config.StalePath],
  ];
  for (const [name, path] of paths) {
    // RFC 9110 §10.2.2 / RFC 3986 §4.2: these go into Location; "//host" (or "/\host" to browsers) leaves the origin.
    if (path !== undefined && !isLocalPath(path)) throw invalid(`${name} must be a local path ("/..." but not "//" or "/\\")`);
  }
  const host = url.hostname;
  const rpID = config.RPID ?? host;
  // WebAuthn L3 §5.1.4.1 / §4 "RP ID": the RP ID is the origin's effective domain or a registrable suffix of it.
  if (rpID === "" || (host !== rpID && !host.endsWith(`.${rpID}`))) throw invalid("RPID must equal the Origin's host or be a suffix of it");
  if (config.FreshFor !== undefined && !(Number.isFinite(config.FreshFor) && config.FreshFor > 0)) {
    throw invalid("FreshFor must be a positive number of ms");
  }
  return { origin: url.origin, rpID };
}
