/*
 * Configuration of the passkey component (SPEC §2.7: at least
 * `ConfirmPath`; the rest are latch's documented fields).
 */
import type { DB } from "../db/index.ts";
import { isLocalPath, type Clock, type Logger } from "../http/index.ts";
import { durationProblem, parseOrigin } from "../internal/index.ts";
import type { IncomingMessage } from "node:http";
import type { AuthEventSink, Sessions } from "../session/index.ts";
import { PasskeyError } from "../webauthn/index.ts";
import type { SignatureVerifier } from "../webauthn/index.ts";

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
  /** @default newLogger() */
  Logger?: Logger;
  /** @default systemClock */
  Clock?: Clock;
  /** Checks assertion signatures (on worker threads under load); share one between components. @default new SignatureVerifier() */
  Verifier?: SignatureVerifier;
}

/** Default freshness window for registering (finish) or deleting a passkey: 5 minutes. */
export const DEFAULT_FRESH_FOR: number = 5 * 60 * 1000;

/** Base name of the pending half-session cookie (`__Host-` prefixed on https). */
export const PASSKEY_PENDING_COOKIE: string = "framework_pending";

function invalid(reason: string): PasskeyError {
  return new PasskeyError("ERR_PASSKEY_INVALID_CONFIG", `passkey config: ${reason}`, { step: "config" });
}

/**
 * Checks `config` at construction, so a mistake fails at startup rather
 * than as a broken ceremony or an open redirect; returns the serialized
 * origin and the RP ID. Throws PasskeyError ERR_PASSKEY_INVALID_CONFIG naming the field.
 */
export function checkConfig(config: Config): { origin: string; rpID: string } {
  const origin = parseOrigin(config.Origin);
  if (origin === undefined) throw invalid("Origin must be an http or https URL");
  for (const name of ["ConfirmPath", "SignedInPath", "SigninPath", "ManagePath", "StalePath"] as const) {
    const path = config[name];
    // RFC 9110 §10.2.2 / RFC 3986 §4.2: these go into Location; "//host" (or "/\host" to browsers) leaves the origin.
    if (path !== undefined && !(typeof path === "string" && isLocalPath(path)))
      throw invalid(`${name} must be a local path ("/..." but not "//" or "/\\")`);
  }
  const host = new URL(origin).hostname;
  const rpID = config.RPID ?? host;
  // WebAuthn L3 §5.1.4.1 / §4 "RP ID": the RP ID is the origin's effective domain or a registrable suffix of it.
  if (rpID === "" || (host !== rpID && !host.endsWith(`.${rpID}`))) throw invalid("RPID must equal the Origin's host or be a suffix of it");
  const freshProblem = config.FreshFor === undefined ? undefined : durationProblem(config.FreshFor);
  if (freshProblem !== undefined) throw invalid(`FreshFor ${freshProblem}`);
  return { origin, rpID };
}
