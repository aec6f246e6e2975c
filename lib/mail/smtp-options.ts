/*
 * Options of the SMTP mailer and their checks. Everything is checked at
 * construction so a bad configuration fails at startup, not on the first
 * sign-in email.
 */
import { hostname } from "node:os";
import type { ConnectionOptions } from "node:tls";
import { cryptoRandom, discardLogger, systemClock } from "../http/index.ts";
import { durationProblem } from "../internal/index.ts";
import type { Clock, Logger, RandomReader } from "../http/index.ts";
import { isHostname } from "./address.ts";
import type { AuthMethod } from "./auth.ts";
import { MailError } from "./errors.ts";

/** Default deadline to open the TCP connection (and the implicit TLS handshake), in ms. */
export const DEFAULT_CONNECT_TIMEOUT = 10_000;
/** Default deadline for each command's reply (and the greeting and STARTTLS handshake), in ms. */
export const DEFAULT_COMMAND_TIMEOUT = 30_000;
/** Default deadline from sending the message body to the server's final reply, in ms. */
export const DEFAULT_DATA_TIMEOUT = 60_000;

/** Options of `newSMTPMailer`. */
export interface SMTPOptions {
  /** The name sent with EHLO. @default os.hostname(), reduced to a valid hostname, else "localhost" */
  helo?: string;
  /** Merged into the node:tls connection options, e.g. `ca` for a private CA. @default {} */
  tls?: ConnectionOptions;
  /** Deadline to connect, in ms. @default DEFAULT_CONNECT_TIMEOUT (10 s) */
  connectTimeout?: number;
  /** Deadline for each reply, in ms. @default DEFAULT_COMMAND_TIMEOUT (30 s) */
  commandTimeout?: number;
  /** Deadline for the reply to the message body, in ms. @default DEFAULT_DATA_TIMEOUT (60 s) */
  dataTimeout?: number;
  /** The one AUTH mechanism to use. @default PLAIN, else LOGIN, whichever the server offers first */
  authMethod?: AuthMethod;
  /** Continue without TLS when a non-loopback `smtp://` server offers no STARTTLS (credentials are still never sent). @default false */
  allowPlaintext?: boolean;
  /** Receives a debug line per message sent. @default discardLogger */
  logger?: Logger;
  /** Source of the Date header. @default systemClock */
  clock?: Clock;
  /** Source of Message-ID and boundary bytes. @default cryptoRandom */
  random?: RandomReader;
  /** Right-hand side of Message-ID. @default the domain of each message's From */
  messageIdDomain?: string;
}

/** `SMTPOptions` with every default applied. */
export interface ResolvedSMTPOptions {
  helo: string;
  tls: ConnectionOptions;
  connectTimeout: number;
  commandTimeout: number;
  dataTimeout: number;
  authMethod: AuthMethod | undefined;
  allowPlaintext: boolean;
  logger: Logger;
  clock: Clock;
  random: RandomReader;
  messageIdDomain: string | undefined;
}

function invalid(reason: string): MailError {
  return new MailError("ERR_MAIL_INVALID_OPTIONS", `mail: invalid SMTP options: ${reason}`);
}

/** Returns `os.hostname()` reduced to a valid EHLO hostname, or "localhost". */
export function defaultHelo(): string {
  const h = hostname()
    .toLowerCase()
    .replace(/[^a-z0-9.-]/g, "")
    .replace(/^[.-]+|[.-]+$/g, "");
  return isHostname(h) ? h : "localhost";
}

// RFC 5321 §4.1.1.1 and §4.1.3: EHLO takes a domain or an address literal.
const ADDRESS_LITERAL = /^\[(?:[0-9]{1,3}(?:\.[0-9]{1,3}){3}|IPv6:[0-9A-Fa-f:.]+)\]$/;

function timeout(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  const why = durationProblem(value);
  if (why !== undefined) throw invalid(`${name} ${why}`);
  return value;
}

/** Applies defaults and checks `o`. Throws `ERR_MAIL_INVALID_OPTIONS`. */
export function resolveSMTPOptions(o: SMTPOptions): ResolvedSMTPOptions {
  const helo = o.helo ?? defaultHelo();
  if (!isHostname(helo) && !ADDRESS_LITERAL.test(helo)) throw invalid("helo must be a hostname or address literal");
  if (o.authMethod !== undefined && o.authMethod !== "PLAIN" && o.authMethod !== "LOGIN") {
    throw invalid("authMethod must be PLAIN or LOGIN");
  }
  if (o.messageIdDomain !== undefined && !isHostname(o.messageIdDomain)) throw invalid("messageIdDomain must be a hostname");
  return {
    helo,
    tls: o.tls ?? {},
    connectTimeout: timeout(o.connectTimeout, DEFAULT_CONNECT_TIMEOUT, "connectTimeout"),
    commandTimeout: timeout(o.commandTimeout, DEFAULT_COMMAND_TIMEOUT, "commandTimeout"),
    dataTimeout: timeout(o.dataTimeout, DEFAULT_DATA_TIMEOUT, "dataTimeout"),
    authMethod: o.authMethod,
    allowPlaintext: o.allowPlaintext ?? false,
    logger: o.logger ?? discardLogger,
    clock: o.clock ?? systemClock,
    random: o.random ?? cryptoRandom,
    messageIdDomain: o.messageIdDomain,
  };
}
