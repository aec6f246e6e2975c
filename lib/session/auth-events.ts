/*
 * The auth event log, the one home of security events (OWASP ASVS 5.0 §16.3.1: log authentication
 * events, successes and failures): typed `AuthEvent`s stamped by `authEventEmitter` and handed to one
 * sink (README "Auth events"). An event never carries a token, code, cookie or link.
 */
import type { IncomingMessage } from "node:http";
import type { Clock, Logger } from "../http/index.ts";
import { clientAddress } from "../internal/index.ts";

/** Every kind of auth event. */
export const AUTH_EVENT_KINDS = [
  "link_requested",
  "signed_in",
  "signin_refused",
  "signed_out",
  "rate_limited",
  "passkey_added",
  "passkey_removed",
  "recovery_code_used",
  "recovery_codes_regenerated",
  "step_up",
  "sessions_ended",
  "address_changed",
  "address_change_reversed",
  "account_deleted",
] as const;

/** The kind of an auth event. */
export type AuthEventKind = (typeof AUTH_EVENT_KINDS)[number];

/** One auth event. Fields that do not apply are absent. */
export interface AuthEvent {
  Kind: AuthEventKind;
  /** When it happened (the component's clock). */
  At: Date;
  /** The account concerned (an email address under the sign-in component), when known. */
  Subject?: string;
  /** The client's address, as the component's ClientIP sees it. */
  Client?: string;
  /** The session method of a sign-in or step-up ("magiclink", "emailcode+passkey"...). */
  Method?: string;
  /** Why: the refusal reason, the rate limit hit, or what ended sessions. */
  Reason?: string;
  /** How many sessions were ended. */
  Count?: number;
}

/**
 * Receives auth events; must not throw (a throw inside a component's transaction rolls its change back).
 * `req`, when there is one, is for its locale and device (security notices); never copy its cookies or headers.
 */
export type AuthEventSink = (event: AuthEvent, req?: IncomingMessage) => void;

/** Returns the sink writing one `info` line "auth event" per event to `logger`. */
export function logAuthEvents(logger: Logger): AuthEventSink {
  return (event) => {
    const { Kind, At, ...rest } = event;
    const attrs: Record<string, unknown> = { event: Kind, at: At.toISOString() };
    for (const [key, value] of Object.entries(rest)) if (value !== undefined) attrs[key.toLowerCase()] = value;
    logger.info("auth event", attrs);
  };
}

/** Returns one sink that hands each event to every sink of `sinks`, in order. */
export function fanOutAuthEvents(...sinks: readonly AuthEventSink[]): AuthEventSink {
  return (event, req) => {
    for (const sink of sinks) sink(event, req);
  };
}

/** Reports one auth event of a request (undefined: a call with none, so no `Client`); the emitter adds `At` and `Client`. */
export type AuthEventEmitter = (req: IncomingMessage | undefined, event: Omit<AuthEvent, "At" | "Client">) => void;

/** Returns how a component reports auth events: stamped with time and `clientAddress`, handed to `OnAuthEvent` (default: a log line). */
export function authEventEmitter(
  config: { OnAuthEvent?: AuthEventSink | undefined; ClientIP?: ((req: IncomingMessage) => string) | undefined },
  clock: Clock,
  logger: Logger,
): AuthEventEmitter {
  const sink = config.OnAuthEvent ?? logAuthEvents(logger);
  return (req, event) => {
    const client = req === undefined ? undefined : clientAddress(req, config.ClientIP);
    sink({ ...event, At: clock.now(), ...(client !== undefined && { Client: client }) }, req);
  };
}
